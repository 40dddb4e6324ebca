import {
  descendSegmentInfo,
  type InheritedContext,
  readAdaptationSet,
} from "./adaptation-set-parser.js";
import { resolveBaseUrl } from "./base-url.js";
import type { AdaptationSet, Mpd, Period, Result, UtcTiming } from "./mpd-model.js";
import { readUtcTiming } from "./utc-timing.js";
import {
  childrenNamed,
  readXmlTree,
  readXmlTreeFromChunks,
  type XmlElement,
  type XmlReadOptions,
} from "./xml-tree.js";
import { parseXsDateTime, parseXsDuration } from "./xs-values.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Options for {@link parseMpd}. */
export interface ParseMpdOptions extends XmlReadOptions {
  /** Final URL of the MPD after redirects: the root every BaseURL resolves against. */
  readonly url: string;
}

const DURATION_ATTRS = [
  "mediaPresentationDuration",
  "minimumUpdatePeriod",
  "suggestedPresentationDelay",
  "timeShiftBufferDepth",
  "maxSegmentDuration",
  "minBufferTime",
] as const;
const DATE_ATTRS = ["availabilityStartTime", "availabilityEndTime", "publishTime"] as const;

/**
 * Parse an MPD held in memory into the typed model.
 * @example
 * const r = parseMpd(xml, { url: 'https://origin.example/live/manifest.mpd' });
 * if (!r.ok) console.log(r.error.element, r.error.message);
 */
export function parseMpd(xml: string | Uint8Array, opts: ParseMpdOptions): Result<Mpd> {
  const tree = readXmlTree(xml, opts);
  return tree.ok ? mpdFromTree(tree.value, opts.url) : tree;
}

/** Parse an MPD from a byte stream (e.g. a fetch body), enforcing the byte ceiling while reading. */
export async function parseMpdStream(
  chunks: AsyncIterable<Uint8Array | string>,
  opts: ParseMpdOptions,
): Promise<Result<Mpd>> {
  const tree = await readXmlTreeFromChunks(chunks, opts);
  return tree.ok ? mpdFromTree(tree.value, opts.url) : tree;
}

/** Build the model from an already-parsed element tree. */
export function mpdFromTree(root: XmlElement, url: string): Result<Mpd> {
  const fail = (element: string, message: string): Result<Mpd> => ({
    ok: false,
    error: { element, message },
  });
  if (root.name !== "MPD") return fail(root.path, `root element is <${root.name}>, expected <MPD>`);
  let absolute: string;
  try {
    absolute = new URL(url).href;
  } catch {
    return fail("MPD", `MPD URL "${url}" is not absolute`);
  }
  const typeAttr = root.attrs.type ?? "static";
  if (typeAttr !== "static" && typeAttr !== "dynamic")
    return fail("MPD", `MPD@type "${typeAttr}" is neither static nor dynamic`);

  const mpd: Mutable<Mpd> = {
    type: typeAttr,
    profiles: (root.attrs.profiles ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean),
    url: absolute,
    utcTimings: [],
    locations: [],
    baseUrl: absolute,
    periods: [],
  };
  for (const key of DURATION_ATTRS) {
    const raw = root.attrs[key];
    if (raw === undefined) continue;
    const v = parseXsDuration(raw);
    if (v === undefined || v < 0)
      return fail("MPD", `MPD@${key} "${raw}" is not a non-negative xs:duration`);
    mpd[key] = v;
  }
  for (const key of DATE_ATTRS) {
    const raw = root.attrs[key];
    if (raw === undefined) continue;
    const v = parseXsDateTime(raw);
    if (v === undefined) return fail("MPD", `MPD@${key} "${raw}" is not an xs:dateTime`);
    mpd[key] = v;
  }
  // 5.3.1.2: availabilityStartTime is mandatory for dynamic MPDs, as the anchor of segment availability.
  if (mpd.type === "dynamic" && mpd.availabilityStartTime === undefined) {
    return fail("MPD", 'MPD@availabilityStartTime is required when MPD@type="dynamic"');
  }

  const utc: UtcTiming[] = [];
  for (const el of childrenNamed(root, "UTCTiming")) {
    // An empty <UTCTiming/> names no clock: skip it like an unknown scheme (the engine
    // falls back to its own clock) instead of refusing the MPD.
    if (el.attrs.schemeIdUri === undefined) continue;
    const t = readUtcTiming(el);
    if (!t.ok) return t;
    utc.push(t.value);
  }
  mpd.utcTimings = utc;
  mpd.locations = childrenNamed(root, "Location").flatMap((l) => {
    try {
      return [new URL(l.text.trim(), absolute).href];
    } catch {
      return [];
    }
  });

  const base = resolveBaseUrl({ url: absolute, availabilityTimeOffset: 0 }, root);
  if (!base.ok) return base;
  mpd.baseUrl = base.value.url;
  const rootCtx: InheritedContext = { base: base.value, template: undefined, segmentInfo: "none" };

  const periodEls = childrenNamed(root, "Period");
  if (periodEls.length === 0) return fail("MPD", "MPD has no Period");
  const periods: Mutable<Period>[] = [];
  for (const [index, el] of periodEls.entries()) {
    const p = readPeriod(el, index, periods[index - 1], rootCtx);
    if (!p.ok) return p;
    periods.push(p.value);
  }
  // 5.3.2.1: a Period ends where the next one starts; the last one at start + @duration,
  // or at the end of a static presentation.
  for (const [i, p] of periods.entries()) {
    const next = periods[i + 1];
    if (next) p.end = next.start;
    else if (p.duration !== undefined) p.end = p.start + p.duration;
    else if (mpd.type === "static" && mpd.mediaPresentationDuration !== undefined)
      p.end = mpd.mediaPresentationDuration;
    if (p.end !== undefined && p.end < p.start) {
      return fail(
        periodEls[i]?.path ?? "Period",
        `Period "${p.id}" ends (${p.end}s) before it starts (${p.start}s)`,
      );
    }
  }
  mpd.periods = periods;
  return { ok: true, value: mpd };
}

function readPeriod(
  el: XmlElement,
  index: number,
  previous: Period | undefined,
  rootCtx: InheritedContext,
): Result<Mutable<Period>> {
  const fail = (message: string): Result<Mutable<Period>> => ({
    ok: false,
    error: { element: el.path, message },
  });
  if (el.attrs["xlink:href"] !== undefined)
    return fail("remote Periods (xlink:href) are not supported");
  let start: number | undefined;
  if (el.attrs.start !== undefined) {
    start = parseXsDuration(el.attrs.start);
    if (start === undefined) return fail(`Period@start "${el.attrs.start}" is not an xs:duration`);
  } else if (previous?.duration !== undefined) {
    start = previous.start + previous.duration;
  } else if (index === 0) {
    // 5.3.2.1: the first Period of a static MPD starts at 0; an early-available first
    // Period of a dynamic MPD is anchored at 0 as well.
    start = 0;
  } else {
    return fail(`Period ${index} has no @start and the previous Period has no @duration`);
  }
  let duration: number | undefined;
  if (el.attrs.duration !== undefined) {
    duration = parseXsDuration(el.attrs.duration);
    if (duration === undefined)
      return fail(`Period@duration "${el.attrs.duration}" is not an xs:duration`);
  }
  if (previous && start < previous.start)
    return fail(`Period@start ${start}s goes before the previous Period`);
  const base = resolveBaseUrl(rootCtx.base, el);
  if (!base.ok) return base;
  const ctx = descendSegmentInfo(el, rootCtx, base.value);
  if (!ctx.ok) return ctx;
  const sets: AdaptationSet[] = [];
  for (const asEl of childrenNamed(el, "AdaptationSet")) {
    const set = readAdaptationSet(asEl, ctx.value);
    if (!set.ok) return set;
    sets.push(set.value);
  }
  // Without @id a Period is keyed by its start, which stays stable across MPD refreshes.
  const period: Mutable<Period> = {
    id: el.attrs.id ?? `start:${start}`,
    index,
    start,
    baseUrl: base.value.url,
    adaptationSets: sets,
  };
  if (duration !== undefined) period.duration = duration;
  return { ok: true, value: period };
}
