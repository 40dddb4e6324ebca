import type { Result, SegmentTemplate, SegmentTemplateFields, TimelineEntry } from "./mpd-model.js";
import { compileTemplate } from "./template-url.js";
import { childrenNamed, firstChild, type XmlElement } from "./xml-tree.js";
import { parseDouble, parseUnsigned, parseUnsignedBig, parseXsBoolean } from "./xs-values.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function readTimeline(el: XmlElement): Result<TimelineEntry[]> {
  const entries: TimelineEntry[] = [];
  for (const s of childrenNamed(el, "S")) {
    const fail = (message: string): Result<TimelineEntry[]> => ({
      ok: false,
      error: { element: s.path, message },
    });
    const d = s.attrs.d === undefined ? undefined : parseUnsignedBig(s.attrs.d);
    if (d === undefined || d === 0n)
      return fail(`S@d is required and must be a positive integer (got ${s.attrs.d ?? "nothing"})`);
    let t: bigint | undefined;
    if (s.attrs.t !== undefined) {
      t = parseUnsignedBig(s.attrs.t);
      if (t === undefined) return fail(`S@t "${s.attrs.t}" is not an unsigned integer`);
    }
    let r = 0;
    if (s.attrs.r !== undefined) {
      const raw = s.attrs.r.trim();
      // 5.3.9.6: @r is an integer >= -1; -1 means "repeat until the next S@t or the Period end".
      if (!/^(-1|\d+)$/.test(raw)) return fail(`S@r "${raw}" must be -1 or a non-negative integer`);
      r = Number(raw);
      if (!Number.isSafeInteger(r)) return fail(`S@r "${raw}" is too large`);
    }
    let n: number | undefined;
    if (s.attrs.n !== undefined) {
      n = parseUnsigned(s.attrs.n);
      if (n === undefined) return fail(`S@n "${s.attrs.n}" is not an unsigned integer`);
    }
    const entry: Mutable<TimelineEntry> = { d, r };
    if (t !== undefined) entry.t = t;
    if (n !== undefined) entry.n = n;
    entries.push(entry);
  }
  if (entries.length === 0)
    return { ok: false, error: { element: el.path, message: "SegmentTimeline has no S element" } };
  return { ok: true, value: entries };
}

/** Read the attributes a single SegmentTemplate element sets (nothing inherited yet). */
export function readSegmentTemplateFields(el: XmlElement): Result<SegmentTemplateFields> {
  const out: Mutable<SegmentTemplateFields> = {};
  const fail = (message: string): Result<SegmentTemplateFields> => ({
    ok: false,
    error: { element: el.path, message },
  });
  const a = el.attrs;
  if (a.media !== undefined) out.media = a.media;
  if (a.initialization !== undefined) out.initialization = a.initialization;
  const ints = ["timescale", "duration", "startNumber", "endNumber"] as const;
  for (const key of ints) {
    const raw = a[key];
    if (raw === undefined) continue;
    const v = parseUnsigned(raw);
    if (v === undefined) return fail(`@${key} "${raw}" is not an unsigned integer`);
    if ((key === "timescale" || key === "duration") && v === 0)
      return fail(`@${key} must be positive`);
    out[key] = v;
  }
  if (a.presentationTimeOffset !== undefined) {
    const v = parseUnsignedBig(a.presentationTimeOffset);
    if (v === undefined)
      return fail(
        `@presentationTimeOffset "${a.presentationTimeOffset}" is not an unsigned integer`,
      );
    out.presentationTimeOffset = v;
  }
  if (a.availabilityTimeOffset !== undefined) {
    const v = parseDouble(a.availabilityTimeOffset);
    if (v === undefined)
      return fail(`@availabilityTimeOffset "${a.availabilityTimeOffset}" is not a double`);
    out.availabilityTimeOffset = v;
  }
  if (a.availabilityTimeComplete !== undefined) {
    const v = parseXsBoolean(a.availabilityTimeComplete);
    if (v === undefined)
      return fail(`@availabilityTimeComplete "${a.availabilityTimeComplete}" is not a boolean`);
    out.availabilityTimeComplete = v;
  }
  const timelineEl = firstChild(el, "SegmentTimeline");
  if (timelineEl) {
    const tl = readTimeline(timelineEl);
    if (!tl.ok) return tl;
    out.timeline = tl.value;
  }
  return { ok: true, value: out };
}

/**
 * Merge a lower level's SegmentTemplate onto the inherited one (ISO/IEC 23009-1 5.3.9.1:
 * segment information at a lower level overrides the higher level attribute by attribute).
 * Only the attributes the child actually sets replace the parent's; the SegmentTimeline
 * child element replaces the inherited timeline as a whole.
 */
export function mergeSegmentTemplateFields(
  inherited: SegmentTemplateFields | undefined,
  own: SegmentTemplateFields | undefined,
): SegmentTemplateFields | undefined {
  if (!inherited) return own;
  if (!own) return inherited;
  const merged: Record<string, unknown> = { ...inherited };
  for (const [key, value] of Object.entries(own)) if (value !== undefined) merged[key] = value;
  return merged as SegmentTemplateFields;
}

/** Apply defaults and check that the merged template is usable. */
export function finalizeSegmentTemplate(
  fields: SegmentTemplateFields,
  element: string,
): Result<SegmentTemplate> {
  const fail = (message: string): Result<SegmentTemplate> => ({
    ok: false,
    error: { element, message },
  });
  if (fields.media === undefined) return fail("SegmentTemplate@media is missing after inheritance");
  const media = compileTemplate(fields.media, element);
  if (!media.ok) return media;
  if (fields.initialization !== undefined) {
    const init = compileTemplate(fields.initialization, element, "initialization");
    if (!init.ok) return init;
    if (init.value.uses.has("Number") || init.value.uses.has("Time")) {
      return fail("SegmentTemplate@initialization must not use $Number$ or $Time$");
    }
  }
  if (!fields.timeline && fields.duration === undefined) {
    return fail("SegmentTemplate needs either @duration or a SegmentTimeline");
  }
  const startNumber = fields.startNumber ?? 1;
  if (fields.endNumber !== undefined && fields.endNumber < startNumber) {
    return fail(`@endNumber ${fields.endNumber} is below @startNumber ${startNumber}`);
  }
  const out: Mutable<SegmentTemplate> = {
    media: fields.media,
    timescale: fields.timescale ?? 1,
    startNumber,
    presentationTimeOffset: fields.presentationTimeOffset ?? 0n,
    availabilityTimeOffset: fields.availabilityTimeOffset ?? 0,
    availabilityTimeComplete: fields.availabilityTimeComplete ?? true,
  };
  if (fields.initialization !== undefined) out.initialization = fields.initialization;
  if (fields.timeline) out.timeline = fields.timeline;
  else if (fields.duration !== undefined) out.duration = fields.duration;
  if (fields.endNumber !== undefined) out.endNumber = fields.endNumber;
  return { ok: true, value: out };
}
