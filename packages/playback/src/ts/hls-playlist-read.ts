/**
 * The parts of an HLS playlist (RFC 8216bis 4) the `stream.ts` relay of an `hls` channel
 * needs: the variants of a master playlist, the segments of a media playlist. Lenient
 * where the relay does not care; URIs resolved against the playlist's own URL.
 */

export interface Variant {
  readonly uri: string;
  readonly bandwidth: number;
  readonly height?: number;
  /** `AUDIO=`: the GROUP-ID of the audio renditions that go with it. */
  readonly audioGroup?: string;
}

/** An `#EXT-X-MEDIA:TYPE=AUDIO` rendition with its own playlist (4.4.6.1). */
export interface AudioRendition {
  readonly groupId: string;
  readonly uri: string;
  readonly language?: string;
  readonly isDefault: boolean;
}

export interface MediaSegment {
  readonly msn: number;
  readonly uri: string;
  readonly durationSec: number;
  /** `#EXT-X-DISCONTINUITY` before it. */
  readonly discontinuity: boolean;
  /** The `#EXT-X-KEY` in force: METHOD other than NONE. */
  readonly key?: { readonly method: string; readonly uri?: string; readonly iv?: string };
  /** The `#EXT-X-MAP` URI in force (fMP4 segments). */
  readonly map?: string;
}

export interface MediaPlaylist {
  readonly targetDurationSec: number;
  readonly segments: readonly MediaSegment[];
  readonly endList: boolean;
}

/** Attributes of a tag's attribute list (4.2), quoted strings unquoted. */
export function attributes(list: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /([A-Z0-9-]+)=("[^"]*"|[^,]*)/g;
  for (const m of list.matchAll(re)) {
    const v = m[2]!;
    out.set(m[1]!, v.startsWith('"') ? v.slice(1, -1) : v);
  }
  return out;
}

function lines(text: string): string[] {
  return text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

/** Is this a master playlist (it lists variants)? */
export function isMasterPlaylist(text: string): boolean {
  return /^#EXT-X-STREAM-INF:/m.test(text);
}

/** The variants of a master playlist (`#EXT-X-STREAM-INF` + URI). */
export function readVariants(text: string, baseUrl: string): Variant[] {
  const out: Variant[] = [];
  let pending: Map<string, string> | undefined;
  for (const line of lines(text)) {
    if (line.startsWith("#EXT-X-STREAM-INF:")) pending = attributes(line.slice(18));
    else if (!line.startsWith("#") && pending) {
      const resolution = /^(\d+)x(\d+)$/.exec(pending.get("RESOLUTION") ?? "");
      const audioGroup = pending.get("AUDIO");
      out.push({
        uri: new URL(line, baseUrl).href,
        bandwidth: Number(pending.get("BANDWIDTH") ?? 0) || 0,
        ...(resolution ? { height: Number(resolution[2]) } : {}),
        ...(audioGroup === undefined ? {} : { audioGroup }),
      });
      pending = undefined;
    }
  }
  return out;
}

/**
 * The variant a `stream.ts` viewer gets: with `preferHeight`, the closest height (ties to
 * the higher bandwidth), as the DASH engine chooses; otherwise the highest bandwidth.
 */
export function chooseVariant(
  variants: readonly Variant[],
  preferHeight: number | null,
): Variant | undefined {
  let best: Variant | undefined;
  const distance = (v: Variant) =>
    preferHeight === null
      ? 0
      : v.height === undefined
        ? Number.MAX_SAFE_INTEGER
        : Math.abs(v.height - preferHeight);
  for (const v of variants) {
    if (
      !best ||
      distance(v) < distance(best) ||
      (distance(v) === distance(best) && v.bandwidth > best.bandwidth)
    )
      best = v;
  }
  return best;
}

/**
 * The audio renditions of a master playlist that have a URI (a rendition without one is
 * carried in the variant's own segments, 4.4.6.2.1).
 */
export function readAudioRenditions(text: string, baseUrl: string): AudioRendition[] {
  const out: AudioRendition[] = [];
  for (const line of lines(text)) {
    if (!line.startsWith("#EXT-X-MEDIA:")) continue;
    const a = attributes(line.slice(13));
    const uri = a.get("URI");
    const groupId = a.get("GROUP-ID");
    if (a.get("TYPE") !== "AUDIO" || uri === undefined || groupId === undefined) continue;
    const language = a.get("LANGUAGE");
    out.push({
      groupId,
      uri: new URL(uri, baseUrl).href,
      isDefault: a.get("DEFAULT") === "YES",
      ...(language === undefined ? {} : { language }),
    });
  }
  return out;
}

/**
 * The audio rendition of `group` to follow beside the video: the first one in `languages`
 * order whose LANGUAGE matches (its primary subtag, case-insensitive), else the
 * DEFAULT=YES one, else the first of the group.
 */
export function chooseAudioRendition(
  renditions: readonly AudioRendition[],
  group: string,
  languages: readonly string[] = [],
): AudioRendition | undefined {
  const ofGroup = renditions.filter((r) => r.groupId === group);
  const primary = (tag: string) => tag.toLowerCase().split("-")[0];
  for (const want of languages) {
    const hit = ofGroup.find(
      (r) => r.language !== undefined && primary(r.language) === primary(want),
    );
    if (hit) return hit;
  }
  return ofGroup.find((r) => r.isDefault) ?? ofGroup[0];
}

/** The segments of a media playlist with their media sequence numbers (4.4.3.2). */
export function readMediaPlaylist(text: string, baseUrl: string): MediaPlaylist {
  let msn = 0;
  let targetDurationSec = 0;
  let endList = false;
  let duration = 0;
  let discontinuity = false;
  let key: MediaSegment["key"];
  let map: string | undefined;
  const segments: MediaSegment[] = [];
  for (const line of lines(text)) {
    if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) msn = Number(line.slice(22)) || 0;
    else if (line.startsWith("#EXT-X-TARGETDURATION:"))
      targetDurationSec = Number(line.slice(22)) || 0;
    else if (line.startsWith("#EXTINF:")) duration = Number.parseFloat(line.slice(8)) || 0;
    else if (line === "#EXT-X-DISCONTINUITY") discontinuity = true;
    else if (line === "#EXT-X-ENDLIST") endList = true;
    else if (line.startsWith("#EXT-X-KEY:")) {
      const a = attributes(line.slice(11));
      const method = a.get("METHOD") ?? "NONE";
      const uri = a.get("URI");
      const iv = a.get("IV");
      key =
        method === "NONE"
          ? undefined
          : {
              method,
              ...(uri === undefined ? {} : { uri: new URL(uri, baseUrl).href }),
              ...(iv === undefined ? {} : { iv }),
            };
    } else if (line.startsWith("#EXT-X-MAP:")) {
      const uri = attributes(line.slice(11)).get("URI");
      map = uri === undefined ? undefined : new URL(uri, baseUrl).href;
    } else if (!line.startsWith("#")) {
      segments.push({
        msn,
        uri: new URL(line, baseUrl).href,
        durationSec: duration,
        discontinuity,
        ...(key ? { key } : {}),
        ...(map ? { map } : {}),
      });
      msn += 1;
      duration = 0;
      discontinuity = false;
    }
  }
  return { targetDurationSec, segments, endList };
}
