import type { Result } from "./mpd-model.js";
import { childrenNamed, type XmlElement } from "./xml-tree.js";
import { parseDouble } from "./xs-values.js";

/** The base URL in force at one level of the MPD, plus its accumulated availability offset. */
export interface BaseUrlContext {
  /** Absolute URL. */
  readonly url: string;
  /** Sum of BaseURL@availabilityTimeOffset along the chain (seconds; Infinity for "INF"). */
  readonly availabilityTimeOffset: number;
}

/**
 * Resolve the BaseURL children of `el` against the parent level (ISO/IEC 23009-1 5.6.4:
 * a relative BaseURL is resolved against the BaseURL of the level above, and ultimately
 * the MPD's own URL, with RFC 3986 reference resolution; an absolute one replaces it).
 *
 * Several BaseURL siblings are alternatives (5.6.5, e.g. CDN fail-over). The first one is
 * used; picking by @serviceLocation/@priority is left to a later fail-over layer.
 */
export function resolveBaseUrl(parent: BaseUrlContext, el: XmlElement): Result<BaseUrlContext> {
  const first = childrenNamed(el, "BaseURL")[0];
  if (!first) return { ok: true, value: parent };
  const text = first.text.trim();
  let url: string;
  try {
    url = text === "" ? parent.url : new URL(text, parent.url).href;
  } catch {
    return {
      ok: false,
      error: {
        element: first.path,
        message: `BaseURL "${text}" cannot be resolved against ${parent.url}`,
      },
    };
  }
  let offset = parent.availabilityTimeOffset;
  const rawOffset = first.attrs.availabilityTimeOffset;
  if (rawOffset !== undefined) {
    const v = parseDouble(rawOffset);
    if (v === undefined) {
      return {
        ok: false,
        error: {
          element: first.path,
          message: `@availabilityTimeOffset "${rawOffset}" is not a double`,
        },
      };
    }
    offset += v;
  }
  return { ok: true, value: { url, availabilityTimeOffset: offset } };
}

/**
 * Resolve a segment or initialization reference against a Representation's base URL.
 * @example resolveSegmentUrl('https://cdn/a/v1/', 'seg-1.m4s') // 'https://cdn/a/v1/seg-1.m4s'
 */
export function resolveSegmentUrl(baseUrl: string, reference: string): string {
  return new URL(reference, baseUrl).href;
}
