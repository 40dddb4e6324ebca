import { type BaseUrlContext, resolveBaseUrl } from "./base-url.js";
import {
  inferContentType,
  readAudioChannelConfigurations,
  readContentProtection,
  readDescriptors,
} from "./descriptors.js";
import type {
  AdaptationSet,
  FrameRate,
  Representation,
  Result,
  SegmentAddressing,
  SegmentTemplateFields,
} from "./mpd-model.js";
import {
  finalizeSegmentTemplate,
  mergeSegmentTemplateFields,
  readSegmentTemplateFields,
} from "./segment-template.js";
import { childrenNamed, firstChild, type XmlElement } from "./xml-tree.js";
import { parseFrameRate, parseUnsigned } from "./xs-values.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Which segment-information element the lowest level so far declared (5.3.9.1). */
export type SegmentInfoKind = "template" | "list" | "base" | "none";

/** What flows down from MPD and Period into an AdaptationSet. */
export interface InheritedContext {
  readonly base: BaseUrlContext;
  readonly template: SegmentTemplateFields | undefined;
  readonly segmentInfo: SegmentInfoKind;
}

/** Track segment information at one level: merge templates, remember the lowest declared kind. */
export function descendSegmentInfo(
  el: XmlElement,
  ctx: InheritedContext,
  base: BaseUrlContext,
): Result<InheritedContext> {
  let template = ctx.template;
  let segmentInfo = ctx.segmentInfo;
  const tplEl = firstChild(el, "SegmentTemplate");
  if (tplEl) {
    const own = readSegmentTemplateFields(tplEl);
    if (!own.ok) return own;
    template = mergeSegmentTemplateFields(template, own.value);
    segmentInfo = "template";
  } else if (firstChild(el, "SegmentList")) {
    segmentInfo = "list";
  } else if (firstChild(el, "SegmentBase")) {
    segmentInfo = "base";
  }
  return { ok: true, value: { base, template, segmentInfo } };
}

/** Common attributes (5.3.7) an AdaptationSet passes to its Representations. */
interface CommonAttributes {
  mimeType?: string;
  codecs?: string;
  width?: number;
  height?: number;
  frameRate?: FrameRate;
  audioSamplingRate?: number;
}

function readCommon(el: XmlElement, inherited: CommonAttributes): Result<CommonAttributes> {
  const out: CommonAttributes = { ...inherited };
  const a = el.attrs;
  if (a.mimeType !== undefined) out.mimeType = a.mimeType;
  if (a.codecs !== undefined) out.codecs = a.codecs;
  for (const key of ["width", "height"] as const) {
    if (a[key] === undefined) continue;
    const v = parseUnsigned(a[key]);
    if (v === undefined)
      return {
        ok: false,
        error: { element: el.path, message: `@${key} "${a[key]}" is not an unsigned integer` },
      };
    out[key] = v;
  }
  if (a.frameRate !== undefined) {
    const fr = parseFrameRate(a.frameRate);
    if (!fr)
      return {
        ok: false,
        error: {
          element: el.path,
          message: `@frameRate "${a.frameRate}" is not a FrameRateType`,
        },
      };
    out.frameRate = fr;
  }
  if (a.audioSamplingRate !== undefined) {
    // 5.3.7.2: one value, or a whitespace-separated min/max pair; the first is kept.
    const v = parseUnsigned(a.audioSamplingRate.trim().split(/\s+/)[0] ?? "");
    if (v === undefined)
      return {
        ok: false,
        error: {
          element: el.path,
          message: `@audioSamplingRate "${a.audioSamplingRate}" is invalid`,
        },
      };
    out.audioSamplingRate = v;
  }
  return { ok: true, value: out };
}

function addressingFor(ctx: InheritedContext, element: string): Result<SegmentAddressing> {
  switch (ctx.segmentInfo) {
    case "template": {
      const tpl = finalizeSegmentTemplate(ctx.template ?? {}, element);
      if (!tpl.ok) return tpl;
      return { ok: true, value: { kind: "template", template: tpl.value } };
    }
    case "list":
      return {
        ok: true,
        value: {
          kind: "unsupported",
          scheme: "SegmentList",
          reason: "SegmentList addressing is not implemented by the native engine",
        },
      };
    case "base":
      return {
        ok: true,
        value: {
          kind: "unsupported",
          scheme: "SegmentBase",
          reason: "SegmentBase (sidx-indexed single file) is not implemented by the native engine",
        },
      };
    case "none":
      return {
        ok: true,
        value: {
          kind: "unsupported",
          scheme: "none",
          reason: "Representation declares no segment information",
        },
      };
  }
}

/** Read an AdaptationSet and its Representations, applying inheritance from `parent`. */
export function readAdaptationSet(el: XmlElement, parent: InheritedContext): Result<AdaptationSet> {
  const base = resolveBaseUrl(parent.base, el);
  if (!base.ok) return base;
  const ctx = descendSegmentInfo(el, parent, base.value);
  if (!ctx.ok) return ctx;
  const common = readCommon(el, {});
  if (!common.ok) return common;
  const cp = readContentProtection(el);
  if (!cp.ok) return cp;
  const roles = readDescriptors(el, "Role");
  const channels = readAudioChannelConfigurations(el);
  const lang = el.attrs.lang;
  const firstComponent = firstChild(el, "ContentComponent");
  const declaredType = el.attrs.contentType ?? firstComponent?.attrs.contentType;
  const setType = inferContentType(declaredType, common.value.mimeType, common.value.codecs);

  const representations: Representation[] = [];
  for (const repEl of childrenNamed(el, "Representation")) {
    const fail = (message: string): Result<AdaptationSet> => ({
      ok: false,
      error: { element: repEl.path, message },
    });
    const id = repEl.attrs.id;
    if (id === undefined || id === "") return fail("Representation@id is required");
    // 5.3.5.2: @bandwidth is mandatory, yet subtitle and thumbnail Representations in the
    // wild omit it. An absent value reads as 0 and the inspection refuses it only on a
    // Representation the engine publishes (where BANDWIDTH= needs it); a present but
    // malformed value is still an error.
    const bandwidth =
      repEl.attrs.bandwidth === undefined ? 0 : parseUnsigned(repEl.attrs.bandwidth);
    if (bandwidth === undefined)
      return fail(`Representation@bandwidth "${repEl.attrs.bandwidth}" is not an unsigned integer`);
    const repBase = resolveBaseUrl(ctx.value.base, repEl);
    if (!repBase.ok) return repBase;
    const repCtx = descendSegmentInfo(repEl, ctx.value, repBase.value);
    if (!repCtx.ok) return repCtx;
    const repCommon = readCommon(repEl, common.value);
    if (!repCommon.ok) return repCommon;
    const repCp = readContentProtection(repEl);
    if (!repCp.ok) return repCp;
    const addressing = addressingFor(repCtx.value, repEl.path);
    if (!addressing.ok) return addressing;
    const repChannels = readAudioChannelConfigurations(repEl);
    const repRoles = readDescriptors(repEl, "Role");
    const c = repCommon.value;
    const rep: Mutable<Representation> = {
      id,
      bandwidth,
      contentType:
        setType !== "unknown" ? setType : inferContentType(undefined, c.mimeType, c.codecs),
      audioChannelConfigurations: repChannels.length > 0 ? repChannels : channels,
      roles: [...roles, ...repRoles],
      contentProtection: [...cp.value, ...repCp.value],
      baseUrl: repBase.value.url,
      baseUrlAvailabilityTimeOffset: repBase.value.availabilityTimeOffset,
      addressing: addressing.value,
    };
    if (c.mimeType !== undefined) rep.mimeType = c.mimeType;
    if (c.codecs !== undefined) rep.codecs = c.codecs;
    if (lang !== undefined) rep.lang = lang;
    if (c.width !== undefined) rep.width = c.width;
    if (c.height !== undefined) rep.height = c.height;
    if (c.frameRate !== undefined) rep.frameRate = c.frameRate;
    if (c.audioSamplingRate !== undefined) rep.audioSamplingRate = c.audioSamplingRate;
    representations.push(rep);
  }
  const set: Mutable<AdaptationSet> = {
    contentType: setType !== "unknown" ? setType : (representations[0]?.contentType ?? "unknown"),
    roles,
    contentProtection: cp.value,
    representations,
  };
  if (el.attrs.id !== undefined) set.id = el.attrs.id;
  if (common.value.mimeType !== undefined) set.mimeType = common.value.mimeType;
  if (common.value.codecs !== undefined) set.codecs = common.value.codecs;
  if (lang !== undefined) set.lang = lang;
  return { ok: true, value: set };
}
