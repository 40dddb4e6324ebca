import type { Representation } from "../manifest/mpd-model.js";

// Sample entries the native engine can pass through from fMP4 into HLS fMP4 unchanged
// (HLS authoring spec for Apple devices 1.2/1.3, and what hls.js/MSE accept): H.264, HEVC,
// Dolby Vision on HEVC/AVC, AV1 for video; AAC/MP3 in mp4a, AC-3, E-AC-3, AC-4, Opus,
// FLAC and ALAC for audio.
const VIDEO_CODECS = new Set([
  "avc1",
  "avc3",
  "hvc1",
  "hev1",
  "dvh1",
  "dvhe",
  "dva1",
  "dvav",
  "av01",
]);
const AUDIO_CODECS = new Set(["mp4a", "ac-3", "ec-3", "ac-4", "opus", "flac", "alac"]);

/** The four-character code of an RFC 6381 codec string (`avc1.64001f` → `avc1`). */
export function codecFourCc(codec: string): string {
  return codec.trim().split(".")[0]?.toLowerCase() ?? "";
}

/**
 * Why a representation's media cannot be passed through as fMP4, or undefined when it can.
 * A missing `@codecs` is not a reason: the engine reads the real sample entry from the init
 * segment, and guessing a fallback from absent metadata would be worse.
 */
export function passthroughProblem(rep: Representation): string | undefined {
  // RFC 6838 4.3: parameters (`video/mp4; profiles="cmfc"`, or without the ";" as the
  // standard's own CMAF example G.19 writes it) refine the type; the type decides fMP4.
  const mime = rep.mimeType?.trim().split(/[;\s]/)[0]?.toLowerCase() ?? "";
  if (mime === "video/mp2t" || mime === "audio/mp2t")
    return `Representation ${rep.id} is MPEG-TS in DASH (${mime}); the native engine packages fMP4 only`;
  if (mime !== "" && !/^(video|audio)\/mp4$/.test(mime))
    return `Representation ${rep.id} has mimeType ${mime}; the native engine packages fMP4/CMAF only`;
  if (rep.codecs === undefined || rep.codecs.trim() === "") return undefined;
  const codecs = rep.codecs
    .split(",")
    .map(codecFourCc)
    .filter((c) => c !== "");
  if (codecs.length > 1)
    return `Representation ${rep.id} multiplexes several tracks (${rep.codecs}); the native engine expects one track per Representation`;
  const fourCc = codecs[0];
  if (fourCc === undefined) return undefined;
  if (!VIDEO_CODECS.has(fourCc) && !AUDIO_CODECS.has(fourCc))
    return `Representation ${rep.id} uses codec ${fourCc}, which HLS fMP4 passthrough does not carry`;
  const allowed = rep.contentType === "audio" ? AUDIO_CODECS : VIDEO_CODECS;
  if (!allowed.has(fourCc))
    return `Representation ${rep.id} is ${rep.contentType} but declares codec ${fourCc}`;
  return undefined;
}
