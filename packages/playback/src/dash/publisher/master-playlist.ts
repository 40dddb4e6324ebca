import type { Selection } from "../selection/representation-choice.js";
import { formatFrameRate, quoted } from "./hls-format.js";

/** One EXT-X-MEDIA TYPE=AUDIO rendition (RFC 8216bis 4.4.6.1). */
export interface AudioRenditionEntry {
  readonly groupId: string;
  /** Unique within the group. */
  readonly name: string;
  /** RFC 5646 tag. */
  readonly language?: string;
  readonly isDefault: boolean;
  /** Defaults to true; forced true for the DEFAULT rendition (4.4.6.1). */
  readonly autoselect?: boolean;
  readonly channels?: number;
  /** Media playlist URI, relative to the master playlist. */
  readonly uri: string;
  readonly codecs?: string;
  readonly bandwidth: number;
}

/** One EXT-X-STREAM-INF variant (RFC 8216bis 4.4.6.2). Bandwidths are of the video alone. */
export interface VariantEntry {
  readonly uri: string;
  readonly bandwidth: number;
  readonly averageBandwidth?: number;
  readonly codecs?: string;
  readonly width?: number;
  readonly height?: number;
  readonly frameRate?: number;
  readonly audioGroupId?: string;
}

export interface MasterPlaylistInput {
  /** Defaults to 6: the media playlists use EXT-X-MAP (fMP4/CMAF). */
  readonly version?: number;
  /** EXT-X-INDEPENDENT-SEGMENTS (4.4.2.1); default true, CMAF segments start with a sync sample. */
  readonly independentSegments?: boolean;
  readonly variants: readonly VariantEntry[];
  readonly audio: readonly AudioRenditionEntry[];
}

function uniqueCodecs(list: readonly (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const item of list) {
    for (const codec of (item ?? "")
      .split(",")
      .map((c) => c.trim())
      .filter(Boolean)) {
      if (!out.includes(codec)) out.push(codec);
    }
  }
  return out;
}

/**
 * Render the master (multivariant) playlist.
 * BANDWIDTH is the video's plus the largest audio rendition of its group, because 4.4.6.2
 * asks for the peak rate of the variant including whichever rendition may play with it;
 * CODECS lists the video codec and every audio codec of that group.
 */
export function renderMasterPlaylist(input: MasterPlaylistInput): string {
  const lines = ["#EXTM3U", `#EXT-X-VERSION:${input.version ?? 6}`];
  if (input.independentSegments ?? true) lines.push("#EXT-X-INDEPENDENT-SEGMENTS");
  for (const a of input.audio) {
    const attrs = [
      "TYPE=AUDIO",
      `GROUP-ID=${quoted(a.groupId)}`,
      `NAME=${quoted(a.name)}`,
      ...(a.language ? [`LANGUAGE=${quoted(a.language)}`] : []),
      `DEFAULT=${a.isDefault ? "YES" : "NO"}`,
      // 4.4.6.1: if DEFAULT is YES, AUTOSELECT must be YES too.
      `AUTOSELECT=${a.isDefault || (a.autoselect ?? true) ? "YES" : "NO"}`,
      ...(a.channels ? [`CHANNELS=${quoted(String(a.channels))}`] : []),
      `URI=${quoted(a.uri)}`,
    ];
    lines.push(`#EXT-X-MEDIA:${attrs.join(",")}`);
  }
  for (const v of input.variants) {
    const group =
      v.audioGroupId === undefined ? [] : input.audio.filter((a) => a.groupId === v.audioGroupId);
    const audioPeak = group.reduce((m, a) => Math.max(m, a.bandwidth), 0);
    const codecs = uniqueCodecs([v.codecs, ...group.map((a) => a.codecs)]);
    const attrs = [
      `BANDWIDTH=${Math.round(v.bandwidth + audioPeak)}`,
      ...(v.averageBandwidth === undefined
        ? []
        : [`AVERAGE-BANDWIDTH=${Math.round(v.averageBandwidth + audioPeak)}`]),
      ...(codecs.length ? [`CODECS=${quoted(codecs.join(","))}`] : []),
      ...(v.width && v.height ? [`RESOLUTION=${v.width}x${v.height}`] : []),
      ...(v.frameRate ? [`FRAME-RATE=${formatFrameRate(v.frameRate)}`] : []),
      ...(v.audioGroupId === undefined ? [] : [`AUDIO=${quoted(v.audioGroupId)}`]),
    ];
    lines.push(`#EXT-X-STREAM-INF:${attrs.join(",")}`, v.uri);
  }
  return `${lines.join("\n")}\n`;
}

// Built on first use: loading ICU's language names costs tens of ms, which every
// process start would pay even when it never publishes a DASH channel.
let displayNames: Intl.DisplayNames | undefined;

function displayName(language: string | undefined, index: number): string {
  if (!language) return `Audio ${index + 1}`;
  try {
    displayNames ??= new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });
    return displayNames.of(language) ?? language;
  } catch {
    return language;
  }
}

/** URIs the caller assigns to the published media playlists. */
export interface MasterNaming {
  readonly videoUri: string;
  /** URI of the audio media playlist for the i-th chosen audio rendition. */
  readonly audioUri: (index: number) => string;
  readonly audioGroupId?: string;
  readonly version?: number;
}

/**
 * Build the master playlist model from a {@link Selection}. With no video the first audio
 * rendition becomes the only variant (further languages need a video variant to attach to).
 */
export function masterInputFromSelection(
  selection: Selection,
  naming: MasterNaming,
): MasterPlaylistInput {
  const groupId = naming.audioGroupId ?? "audio";
  const names = new Map<string, number>();
  const audio: AudioRenditionEntry[] = selection.audio.map((a, i) => {
    const base = displayName(a.language, i);
    const seen = names.get(base) ?? 0;
    names.set(base, seen + 1);
    const channels = a.representation.audioChannelConfigurations.find(
      (c) => c.channels !== undefined,
    )?.channels;
    return {
      groupId,
      name: seen === 0 ? base : `${base} (${seen + 1})`,
      ...(a.language ? { language: a.language } : {}),
      isDefault: a.isDefault,
      ...(channels ? { channels } : {}),
      uri: naming.audioUri(i),
      ...(a.representation.codecs ? { codecs: a.representation.codecs } : {}),
      bandwidth: a.representation.bandwidth,
    };
  });
  const v = selection.video?.representation;
  const version = naming.version === undefined ? {} : { version: naming.version };
  if (!v) {
    const first = audio[0];
    if (!first) return { ...version, variants: [], audio: [] };
    const variant: VariantEntry = {
      uri: first.uri,
      bandwidth: first.bandwidth,
      ...(first.codecs ? { codecs: first.codecs } : {}),
    };
    return { ...version, variants: [variant], audio: [] };
  }
  const variant: VariantEntry = {
    uri: naming.videoUri,
    bandwidth: v.bandwidth,
    ...(v.codecs ? { codecs: v.codecs } : {}),
    ...(v.width ? { width: v.width } : {}),
    ...(v.height ? { height: v.height } : {}),
    ...(v.frameRate ? { frameRate: v.frameRate.fps } : {}),
    ...(audio.length ? { audioGroupId: groupId } : {}),
  };
  return { ...version, variants: [variant], audio };
}
