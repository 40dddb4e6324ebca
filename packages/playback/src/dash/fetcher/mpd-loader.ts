import type { Mpd } from "../manifest/mpd-model.js";
import { parseMpd } from "../manifest/mpd-parser.js";
import { clockOffsetFromUtcTiming, utcTimingUrls } from "../manifest/utc-timing.js";
import { describeRefusal, type FetchContext, fetchBytes } from "./upstream-fetch.js";

/** Why an MPD could not be used; `element` names the MPD element when parsing failed. */
export interface MpdLoadError {
  readonly kind: "fetch" | "parse";
  readonly message: string;
}

export type MpdLoadResult =
  | { readonly ok: true; readonly mpd: Mpd; readonly fetchedAtMs: number }
  | { readonly ok: false; readonly error: MpdLoadError };

/**
 * Fetches and parses the MPD. BaseURLs resolve against the URL that finally answered
 * (after redirects), as ISO/IEC 23009-1 5.6.4 requires. The body is read under the
 * `max_playlist_bytes` ceiling.
 */
export async function loadMpd(
  ctx: FetchContext,
  url: string,
  maxBytes: number,
  deadlineMs: number,
): Promise<MpdLoadResult> {
  const r = await fetchBytes(ctx, url, { maxBytes, deadlineMs });
  if (!r.ok) {
    const why = r.kind === "refused" ? describeRefusal(url, r.message) : r.message;
    return { ok: false, error: { kind: "fetch", message: `MPD: ${why}` } };
  }
  const parsed = parseMpd(r.bytes, { url: r.url, maxBytes });
  if (!parsed.ok) {
    return {
      ok: false,
      error: { kind: "parse", message: `MPD ${parsed.error.element}: ${parsed.error.message}` },
    };
  }
  return { ok: true, mpd: parsed.value, fetchedAtMs: Date.now() };
}

/**
 * Resolves the origin's clock from the MPD's UTCTiming elements (ISO/IEC 23009-1
 * 5.8.4.11), trying each scheme and URL in document order. Returns the offset to add
 * to the local clock, or an error message when none could be resolved (the caller then
 * keeps the local clock, 0).
 */
export async function resolveClockOffset(
  ctx: FetchContext,
  mpd: Mpd,
  mpdFetchedAtMs: number,
): Promise<{ ok: true; offsetMs: number } | { ok: false; message: string }> {
  let last = "no UTCTiming in the MPD";
  for (const timing of mpd.utcTimings) {
    if (timing.scheme === "direct") {
      const r = clockOffsetFromUtcTiming(timing, {
        requestSentMs: mpdFetchedAtMs,
        responseReceivedMs: mpdFetchedAtMs,
      });
      if (r.ok) return { ok: true, offsetMs: r.value };
      last = r.error.message;
      continue;
    }
    for (const url of utcTimingUrls(timing, mpd.url)) {
      const sent = Date.now();
      const r = await fetchBytes(ctx, url, { maxBytes: 4096, deadlineMs: 5_000 });
      const received = Date.now();
      if (!r.ok) {
        last = `UTCTiming: ${r.message}`;
        continue;
      }
      const date = r.headers.date;
      const offset = clockOffsetFromUtcTiming(timing, {
        body: r.bytes.toString("utf8"),
        ...(typeof date === "string" ? { dateHeader: date } : {}),
        requestSentMs: sent,
        responseReceivedMs: received,
      });
      if (offset.ok) return { ok: true, offsetMs: offset.value };
      last = offset.error.message;
    }
  }
  return { ok: false, message: last };
}
