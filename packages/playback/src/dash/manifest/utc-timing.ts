import type { MpdError, Result, UtcTiming, UtcTimingScheme } from "./mpd-model.js";
import type { XmlElement } from "./xml-tree.js";
import { parseXsDateTime } from "./xs-values.js";

// ISO/IEC 23009-1 5.8.5.7 (UTC Timing schemes). The 2012 spellings of the http-* schemes
// are still written by some packagers and mean the same thing.
const SCHEMES: ReadonlyMap<string, UtcTimingScheme> = new Map([
  ["urn:mpeg:dash:utc:http-iso:2014", "http-iso"],
  ["urn:mpeg:dash:utc:http-iso:2012", "http-iso"],
  ["urn:mpeg:dash:utc:http-xsdate:2014", "http-xsdate"],
  ["urn:mpeg:dash:utc:http-xsdate:2012", "http-xsdate"],
  ["urn:mpeg:dash:utc:http-head:2014", "http-head"],
  ["urn:mpeg:dash:utc:http-head:2012", "http-head"],
  ["urn:mpeg:dash:utc:direct:2014", "direct"],
  ["urn:mpeg:dash:utc:direct:2012", "direct"],
  ["urn:mpeg:dash:utc:ntp:2014", "ntp"],
  ["urn:mpeg:dash:utc:http-ntp:2014", "http-ntp"],
]);

/** Classify a UTCTiming@schemeIdUri. */
export function classifyUtcTimingScheme(schemeIdUri: string): UtcTimingScheme {
  return SCHEMES.get(schemeIdUri.trim()) ?? "unsupported";
}

/** Read one UTCTiming element (MPD level). */
export function readUtcTiming(el: XmlElement): Result<UtcTiming> {
  const schemeIdUri = el.attrs.schemeIdUri;
  if (schemeIdUri === undefined)
    return { ok: false, error: { element: el.path, message: "UTCTiming@schemeIdUri is required" } };
  return {
    ok: true,
    value: {
      schemeIdUri,
      scheme: classifyUtcTimingScheme(schemeIdUri),
      value: el.attrs.value ?? "",
    },
  };
}

/**
 * The URLs a resolvable http-* UTCTiming lists (5.8.5.7: a whitespace-separated list of
 * alternatives), resolved against the MPD URL. Empty for direct/ntp/unsupported schemes.
 */
export function utcTimingUrls(timing: UtcTiming, mpdUrl: string): string[] {
  if (
    timing.scheme !== "http-iso" &&
    timing.scheme !== "http-xsdate" &&
    timing.scheme !== "http-head"
  )
    return [];
  const out: string[] = [];
  for (const part of timing.value.split(/\s+/)) {
    if (!part) continue;
    try {
      out.push(new URL(part, mpdUrl).href);
    } catch {
      // An unusable alternative is skipped; the others may still work.
    }
  }
  return out;
}

/** What the caller observed when resolving a UTCTiming source. */
export interface UtcTimingObservation {
  /** Response body (http-iso, http-xsdate). */
  readonly body?: string;
  /** Date response header (http-head; also a fallback for the other http schemes). */
  readonly dateHeader?: string;
  /** Local clock (epoch ms) when the request was sent; for direct: when the MPD was fetched. */
  readonly requestSentMs: number;
  /** Local clock (epoch ms) when the response arrived. */
  readonly responseReceivedMs: number;
}

/**
 * Clock offset in ms to add to the local clock to get the origin's clock
 * (`serverNow = Date.now() + offsetMs`). The server time is compared with the midpoint
 * of the request, which halves the error a slow round trip would otherwise add.
 * @example clockOffsetFromUtcTiming(t, { body: '2024-01-01T00:00:10Z', requestSentMs: 0, responseReceivedMs: 0 })
 */
export function clockOffsetFromUtcTiming(
  timing: UtcTiming,
  seen: UtcTimingObservation,
): Result<number> {
  const fail = (message: string): Result<number> => ({
    ok: false,
    error: { element: "UTCTiming", message } satisfies MpdError,
  });
  let serverMs: number | undefined;
  switch (timing.scheme) {
    case "direct":
      // 5.8.5.7: the value itself is the xs:dateTime at the moment the MPD was served.
      serverMs = parseXsDateTime(timing.value);
      break;
    case "http-iso":
    case "http-xsdate":
      serverMs =
        seen.body === undefined
          ? undefined
          : (parseXsDateTime(seen.body.trim()) ?? parseIsoLoose(seen.body.trim()));
      break;
    case "http-head":
      serverMs = seen.dateHeader === undefined ? undefined : parseHttpDate(seen.dateHeader);
      break;
    default:
      return fail(`UTCTiming scheme ${timing.schemeIdUri} cannot be resolved here`);
  }
  if (serverMs === undefined) return fail(`no usable time in the ${timing.scheme} response`);
  const midpoint = (seen.requestSentMs + seen.responseReceivedMs) / 2;
  const local = timing.scheme === "direct" ? seen.responseReceivedMs : midpoint;
  // http-head carries whole seconds; the Date value is truncated, so on average it is 500 ms early.
  const truncation = timing.scheme === "http-head" ? 500 : 0;
  return { ok: true, value: Math.round(serverMs + truncation - local) };
}

function parseIsoLoose(text: string): number | undefined {
  // Some time servers answer ISO 8601 with a basic-format zone ("+0000"); Date.parse copes.
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

function parseHttpDate(text: string): number | undefined {
  // RFC 9110 5.6.7 IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text.trim()))
    return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
