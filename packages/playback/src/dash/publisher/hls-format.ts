// Value formatting for playlist attributes (RFC 8216bis 4.2, Attribute Lists).

/**
 * quoted-string (RFC 8216bis 4.2): within double quotes, no CR, LF or double quote.
 * Throws, because an unquotable value is a programming error in the caller, not input.
 */
export function quoted(value: string): string {
  if (/["\r\n]/.test(value))
    throw new TypeError(`value cannot be a quoted-string: ${JSON.stringify(value)}`);
  return `"${value}"`;
}

/**
 * decimal-floating-point seconds, at most 5 decimals and at least 3, so EXTINF values
 * stay exact to 10 µs and read naturally ("2.000", "1.96267").
 */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError(`not a duration: ${seconds}`);
  const fixed = seconds.toFixed(5);
  return fixed.replace(/(\.\d{3}\d*?)0+$/, "$1");
}

/** FRAME-RATE (RFC 8216bis 4.4.6.2): decimal-floating-point rounded to three decimal places. */
export function formatFrameRate(fps: number): string {
  return fps.toFixed(3);
}

/**
 * EXT-X-TARGETDURATION (RFC 8216bis 4.4.3.1): each EXTINF duration, rounded to the nearest
 * integer, must be <= the target duration. So the smallest valid target is the maximum of
 * the rounded durations (never below 1).
 */
export function targetDurationFor(durationsSec: Iterable<number>): number {
  let max = 1;
  for (const d of durationsSec) max = Math.max(max, Math.round(d));
  return max;
}

/** ISO 8601 with milliseconds and a zone, as EXT-X-PROGRAM-DATE-TIME requires (RFC 8216bis 4.4.4.6). */
export function formatProgramDateTime(epochMs: number): string {
  return new Date(Math.round(epochMs)).toISOString();
}

/** Features that raise the EXT-X-VERSION a media playlist must declare (RFC 8216bis Section 8). */
export interface VersionFeatures {
  /** Non-integer EXTINF values: version 3. */
  readonly fractionalDurations?: boolean;
  /** EXT-X-MAP without EXT-X-I-FRAMES-ONLY: version 6. */
  readonly map?: boolean;
  /** EXT-X-SKIP (Playlist Delta Updates): version 9. */
  readonly skip?: boolean;
}

/** Lowest EXT-X-VERSION compatible with the features used. */
export function requiredVersion(f: VersionFeatures): number {
  if (f.skip) return 9;
  if (f.map) return 6;
  if (f.fractionalDurations) return 3;
  return 1;
}
