/** Counters ffmpeg reports on `-progress pipe:1` (key=value lines, a block per period). */
export interface FfmpegProgress {
  /** Output timestamp reached, ms. */
  readonly outTimeMs: number;
  /** Bytes written so far; ffmpeg reports N/A for the HLS muxer, then this stays 0. */
  readonly totalBytes: number;
}

/**
 * Folds `-progress` lines into the counters. Returns the new progress and whether it
 * advanced (the watchdog's sign of life). Unknown keys and `N/A` values are ignored.
 */
export function foldProgressLine(
  current: FfmpegProgress,
  line: string,
): { progress: FfmpegProgress; advanced: boolean } {
  const eq = line.indexOf("=");
  if (eq <= 0) return { progress: current, advanced: false };
  const key = line.slice(0, eq).trim();
  const value = line.slice(eq + 1).trim();
  if (!/^\d+$/.test(value)) return { progress: current, advanced: false };
  if (key === "out_time_us" || key === "out_time_ms") {
    // ffmpeg 5.1 writes microseconds under both names.
    const ms = Math.floor(Number(value) / 1000);
    return ms > current.outTimeMs
      ? { progress: { ...current, outTimeMs: ms }, advanced: true }
      : { progress: current, advanced: false };
  }
  if (key === "total_size") {
    const bytes = Number(value);
    return bytes > current.totalBytes
      ? { progress: { ...current, totalBytes: bytes }, advanced: true }
      : { progress: current, advanced: false };
  }
  return { progress: current, advanced: false };
}
