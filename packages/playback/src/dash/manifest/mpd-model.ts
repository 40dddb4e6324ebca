/**
 * Typed model of an MPD (ISO/IEC 23009-1) as far as the native DASH->HLS engine needs it.
 * Times from the MPD timeline are seconds (number); media-timeline values that can exceed
 * 2^53 (S@t, @presentationTimeOffset) are bigint in @timescale units.
 */

/** A parse failure, naming the element that failed (`SegmentTimeline/S`, `Period`, ...). */
export interface MpdError {
  readonly element: string;
  readonly message: string;
}

/** Errors are values: callers branch on `ok`. */
export type Result<T, E = MpdError> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: E };

export type MpdType = "static" | "dynamic";

/** UTCTiming schemes (ISO/IEC 23009-1 5.8.5.7). Only the http-*, and direct schemes can be resolved here. */
export type UtcTimingScheme =
  | "http-iso"
  | "http-xsdate"
  | "http-head"
  | "direct"
  | "ntp"
  | "http-ntp"
  | "unsupported";

export interface UtcTiming {
  readonly schemeIdUri: string;
  readonly scheme: UtcTimingScheme;
  readonly value: string;
}

export interface FrameRate {
  readonly numerator: number;
  readonly denominator: number;
  /** numerator / denominator, e.g. 29.97002997 for 30000/1001. */
  readonly fps: number;
}

export interface Descriptor {
  readonly schemeIdUri: string;
  readonly value?: string;
}

export interface AudioChannelConfiguration extends Descriptor {
  /** Channel count derived from the scheme, when the scheme is known. */
  readonly channels?: number;
}

export interface ContentProtection extends Descriptor {
  /** `cenc:default_KID` as 32 lowercase hex digits (dashes removed). */
  readonly defaultKid?: string;
}

/** One S element of a SegmentTimeline (ISO/IEC 23009-1 5.3.9.6). */
export interface TimelineEntry {
  /** S@t in @timescale units; absent means "continues from the previous S". */
  readonly t?: bigint;
  /** S@n (4th edition): explicit number of the first segment of this entry. */
  readonly n?: number;
  readonly d: bigint;
  /** S@r: -1 repeats until the next S@t, the Period end, or the live edge. */
  readonly r: number;
}

/** SegmentTemplate attributes as written at one level; every field optional so levels merge. */
export interface SegmentTemplateFields {
  readonly media?: string;
  readonly initialization?: string;
  readonly timescale?: number;
  readonly duration?: number;
  readonly startNumber?: number;
  readonly endNumber?: number;
  readonly presentationTimeOffset?: bigint;
  readonly availabilityTimeOffset?: number;
  readonly availabilityTimeComplete?: boolean;
  readonly timeline?: readonly TimelineEntry[];
}

/** A fully merged SegmentTemplate with the defaults of ISO/IEC 23009-1 5.3.9 applied. */
export interface SegmentTemplate {
  readonly media: string;
  readonly initialization?: string;
  readonly timescale: number;
  /** Constant segment duration in @timescale units (Number addressing); absent with a timeline. */
  readonly duration?: number;
  readonly startNumber: number;
  readonly endNumber?: number;
  readonly presentationTimeOffset: bigint;
  /** Seconds; Infinity for "INF". */
  readonly availabilityTimeOffset: number;
  readonly availabilityTimeComplete: boolean;
  readonly timeline?: readonly TimelineEntry[];
}

export type SegmentAddressing =
  | { readonly kind: "template"; readonly template: SegmentTemplate }
  | {
      readonly kind: "unsupported";
      readonly scheme: "SegmentList" | "SegmentBase" | "none";
      readonly reason: string;
    };

export type ContentType = "video" | "audio" | "text" | "image" | "application" | "unknown";

export interface Representation {
  readonly id: string;
  readonly bandwidth: number;
  readonly contentType: ContentType;
  readonly mimeType?: string;
  readonly codecs?: string;
  readonly lang?: string;
  readonly width?: number;
  readonly height?: number;
  readonly frameRate?: FrameRate;
  readonly audioSamplingRate?: number;
  readonly audioChannelConfigurations: readonly AudioChannelConfiguration[];
  readonly roles: readonly Descriptor[];
  readonly contentProtection: readonly ContentProtection[];
  /** Absolute base URL after chaining MPD -> Period -> AdaptationSet -> Representation BaseURLs. */
  readonly baseUrl: string;
  /** BaseURL@availabilityTimeOffset accumulated along the chain (seconds, may be Infinity). */
  readonly baseUrlAvailabilityTimeOffset: number;
  readonly addressing: SegmentAddressing;
}

export interface AdaptationSet {
  readonly id?: string;
  readonly contentType: ContentType;
  readonly mimeType?: string;
  readonly codecs?: string;
  readonly lang?: string;
  readonly roles: readonly Descriptor[];
  readonly contentProtection: readonly ContentProtection[];
  readonly representations: readonly Representation[];
}

export interface Period {
  readonly id: string;
  readonly index: number;
  /** Period start on the MPD timeline (ISO/IEC 23009-1 5.3.2.1), seconds. */
  readonly start: number;
  readonly duration?: number;
  /** Start of the next Period, or start + duration, or the presentation end; absent for an open live Period. */
  readonly end?: number;
  readonly baseUrl: string;
  readonly adaptationSets: readonly AdaptationSet[];
}

export interface Mpd {
  readonly type: MpdType;
  readonly profiles: readonly string[];
  /** Final URL the MPD was fetched from (after redirects): the root of BaseURL resolution. */
  readonly url: string;
  readonly availabilityStartTime?: number;
  readonly availabilityEndTime?: number;
  readonly publishTime?: number;
  readonly mediaPresentationDuration?: number;
  readonly minimumUpdatePeriod?: number;
  readonly suggestedPresentationDelay?: number;
  readonly timeShiftBufferDepth?: number;
  readonly maxSegmentDuration?: number;
  readonly minBufferTime?: number;
  readonly utcTimings: readonly UtcTiming[];
  /** MPD.Location elements, resolved (where to fetch the next refresh from). */
  readonly locations: readonly string[];
  readonly baseUrl: string;
  readonly periods: readonly Period[];
}
