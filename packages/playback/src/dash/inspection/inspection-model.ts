/** The two ways a DASH channel can be played (operator contract: channel `engine`). */
export type EngineName = "native" | "ffmpeg";

/** What a channel asks for: `auto` lets the inspection decide. */
export type EngineSetting = "auto" | EngineName;

/**
 * The verdict of inspecting an MPD for the native engine: the `inspection` object of the
 * DASH probe response (spec "Sessions, probes, previews"). Field names are the wire names.
 */
export interface NativeInspection {
  /** True when the native DASH→HLS engine can play the chosen representations. */
  readonly native_supported: boolean;
  /** `native` when supported, else `ffmpeg` (the compatibility engine). */
  readonly suggested_engine: EngineName;
  /** Why the native engine cannot play the source (`; `-joined when several); null when it can. */
  readonly reason: string | null;
  /** Whether any chosen representation carries ContentProtection. */
  readonly encrypted: boolean;
  /** Distinct `cenc:default_KID`s of the chosen representations, 32 lowercase hex digits each. */
  readonly kids: readonly string[];
}
