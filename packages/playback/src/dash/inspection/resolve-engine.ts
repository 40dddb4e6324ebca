import type { EngineResolution, EngineSetting, NativeInspection } from "./inspection-model.js";

/**
 * Which engine a DASH session runs (spec: runtime session `engine` / `fallback_reason`).
 * - `ffmpeg`: always the compatibility engine; the reason says it was the channel's choice.
 * - `native`: always the native engine, even when the inspection says it cannot cope; the
 *   inspection's reason is recorded so an operator sees why the session may fail.
 * - `auto`: the inspection decides.
 * @example resolveEngine(channel.engine, inspectNativeSupport(mpd, { keyKids })) // {engine:'ffmpeg', fallback_reason:'Representation v1 uses SegmentList addressing'}
 */
export function resolveEngine(
  setting: EngineSetting,
  inspection: NativeInspection,
): EngineResolution {
  switch (setting) {
    case "ffmpeg":
      return { engine: "ffmpeg", fallback_reason: "channel engine is set to ffmpeg" };
    case "native":
      return {
        engine: "native",
        fallback_reason: inspection.native_supported
          ? null
          : `native engine forced by the channel although: ${inspection.reason ?? "unsupported"}`,
      };
    case "auto":
      return inspection.native_supported
        ? { engine: "native", fallback_reason: null }
        : { engine: "ffmpeg", fallback_reason: inspection.reason ?? "native engine unsupported" };
  }
}
