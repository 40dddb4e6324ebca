import type { DashEngine } from "@svc/core/catalog";

/** Which packaging engine a session runs, and why when it is not the requested one. */
export interface EngineChoice {
  readonly engine: "native" | "ffmpeg";
  /** Why `auto` fell back to the compatibility engine; null when it did not. */
  readonly fallbackReason: string | null;
}

/**
 * The engine choice point (operator contract: channel `engine` = auto | native | ffmpeg).
 * `auto` runs the native engine unless its inspection of the MPD found something it
 * cannot package (`unsupported`), in which case the ffmpeg compatibility engine takes
 * over with that reason. `native` never falls back; `ffmpeg` always uses ffmpeg.
 */
export function chooseEngine(requested: DashEngine, unsupported: string | undefined): EngineChoice {
  if (requested === "ffmpeg") return { engine: "ffmpeg", fallbackReason: null };
  if (requested === "native" || unsupported === undefined)
    return { engine: "native", fallbackReason: null };
  return { engine: "ffmpeg", fallbackReason: unsupported };
}
