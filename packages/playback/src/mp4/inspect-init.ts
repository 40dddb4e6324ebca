import { type InitInfo, parseInit } from "./init-parser.js";
import { ok, type Result } from "./parse-result.js";

/** What a playlist writer needs to know about one track of an init segment. */
export interface InitTrackSummary {
  trackId: number;
  handler: string;
  timescale: number;
  /** RFC 6381 codec string for HLS `CODECS`, when derivable from the first sample entry. */
  codec?: string;
  /** Sample entry type as stored, e.g. `avc1` or `encv`. */
  sampleEntry: string;
  /** True when the first sample entry is protected (`encv`/`enca` with `sinf`). */
  encrypted: boolean;
  /** `schm` scheme type of a protected entry (`cenc`, `cbcs`, ...). */
  scheme?: string;
  width?: number;
  height?: number;
  channelCount?: number;
  sampleRate?: number;
  language: string;
}

/**
 * Summarises the tracks of an init segment.
 *
 * @example
 * const r = inspectInit(initBytes);
 * if (r.ok) r.value.map((t) => t.codec).join(','); // "avc1.64000d,mp4a.40.2"
 */
export function inspectInit(buf: Buffer): Result<InitTrackSummary[]> {
  const parsed = parseInit(buf);
  if (!parsed.ok) return parsed;
  return ok(summariseTracks(parsed.value));
}

/** Summaries of an already parsed init segment. */
export function summariseTracks(init: InitInfo): InitTrackSummary[] {
  return init.tracks.map((t) => {
    const entry = t.sampleEntries[0];
    const s: InitTrackSummary = {
      trackId: t.trackId,
      handler: t.handler,
      timescale: t.timescale,
      sampleEntry: entry?.type ?? "",
      encrypted: entry?.protection !== undefined,
      language: t.language,
    };
    if (entry?.codec) s.codec = entry.codec;
    if (entry?.protection?.schemeType) s.scheme = entry.protection.schemeType;
    if (t.handler === "vide") {
      s.width = entry?.width || t.width;
      s.height = entry?.height || t.height;
    }
    if (entry?.channelCount !== undefined) s.channelCount = entry.channelCount;
    if (entry?.sampleRate !== undefined) s.sampleRate = entry.sampleRate;
    return s;
  });
}
