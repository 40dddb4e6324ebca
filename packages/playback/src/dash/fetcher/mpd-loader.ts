import { createHash } from "node:crypto";
import type { Mpd } from "../manifest/mpd-model.js";
import { parseMpd } from "../manifest/mpd-parser.js";
import { clockOffsetFromUtcTiming, utcTimingUrls } from "../manifest/utc-timing.js";
import { describeRefusal, type FetchContext, fetchBytes } from "./upstream-fetch.js";

/**
 * Why an MPD could not be used: `refused` by the egress guard, another `fetch` failure,
 * or a `parse` error (the message names the MPD element).
 */
export interface MpdLoadError {
  readonly kind: "fetch" | "refused" | "parse";
  readonly message: string;
}

export type MpdLoadResult =
  | {
      readonly ok: true;
      readonly mpd: Mpd;
      readonly fetchedAtMs: number;
      /** What the next refresh sends or compares to skip an unchanged MPD. */
      readonly validators: MpdValidators;
    }
  | { readonly ok: false; readonly error: MpdLoadError };

/** The last MPD's `ETag`, `Last-Modified` and body fingerprint. */
export interface MpdValidators {
  readonly etag?: string;
  readonly lastModified?: string;
  readonly fingerprint: string;
}

/** A refresh that found the MPD unchanged: no parse, the previous model stays. */
export type MpdRefreshResult =
  | MpdLoadResult
  | { readonly ok: true; readonly unchanged: true; readonly validators: MpdValidators };

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
  if (!r.ok) return fetchFailed(url, r);
  return parseLoaded(r.bytes, r.url, r.headers, maxBytes);
}

/**
 * A refresh: a conditional GET with the previous `ETag` / `Last-Modified` (RFC 9110
 * 13.1.1, 13.1.3), and no parse when the origin answers 304 or sends the same document
 * again. "The same" ignores `MPD@publishTime`, which some packagers stamp on every
 * request; ISO/IEC 23009-1 5.4.1 has it change whenever the MPD does, so a body equal but
 * for it carries nothing new.
 */
export async function refreshMpd(
  ctx: FetchContext,
  url: string,
  maxBytes: number,
  deadlineMs: number,
  previous: MpdValidators,
): Promise<MpdRefreshResult> {
  const conditional: Record<string, string> = {};
  if (previous.etag !== undefined) conditional["if-none-match"] = previous.etag;
  if (previous.lastModified !== undefined) conditional["if-modified-since"] = previous.lastModified;
  const headers = { ...ctx.headers, ...conditional };
  const r = await fetchBytes({ ...ctx, headers }, url, { maxBytes, deadlineMs });
  if (!r.ok && r.kind === "status" && r.status === 304)
    return { ok: true, unchanged: true, validators: previous };
  if (!r.ok) return fetchFailed(url, r);
  const fingerprint = fingerprintOf(r.bytes);
  if (fingerprint === previous.fingerprint)
    return { ok: true, unchanged: true, validators: validatorsOf(r.headers, fingerprint) };
  return parseLoaded(r.bytes, r.url, r.headers, maxBytes, fingerprint);
}

function fetchFailed(url: string, r: { kind: string; message: string }): MpdLoadResult {
  if (r.kind === "refused")
    return {
      ok: false,
      error: { kind: "refused", message: `MPD: ${describeRefusal(url, r.message)}` },
    };
  return { ok: false, error: { kind: "fetch", message: `MPD: ${r.message}` } };
}

function parseLoaded(
  bytes: Buffer,
  finalUrl: string,
  headers: Record<string, unknown>,
  maxBytes: number,
  fingerprint = fingerprintOf(bytes),
): MpdLoadResult {
  const parsed = parseMpd(bytes, { url: finalUrl, maxBytes });
  if (!parsed.ok) {
    return {
      ok: false,
      error: { kind: "parse", message: `MPD ${parsed.error.element}: ${parsed.error.message}` },
    };
  }
  return {
    ok: true,
    mpd: parsed.value,
    fetchedAtMs: Date.now(),
    validators: validatorsOf(headers, fingerprint),
  };
}

function validatorsOf(headers: Record<string, unknown>, fingerprint: string): MpdValidators {
  const etag = headers.etag;
  const lastModified = headers["last-modified"];
  return {
    fingerprint,
    ...(typeof etag === "string" ? { etag } : {}),
    ...(typeof lastModified === "string" ? { lastModified } : {}),
  };
}

/** SHA-1 of the MPD with the value of its publishTime attribute blanked. */
function fingerprintOf(bytes: Buffer): string {
  const text = bytes.toString("latin1").replace(/\bpublishTime="[^"]*"/, 'publishTime=""');
  return createHash("sha1").update(text, "latin1").digest("base64");
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
