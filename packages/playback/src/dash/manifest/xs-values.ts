import type { FrameRate } from "./mpd-model.js";

// XML Schema lexical forms used by MPD attributes (ISO/IEC 23009-1 uses xs:duration,
// xs:dateTime, xs:boolean, xs:unsignedInt/unsignedLong and its own FrameRateType).

const DURATION_RE =
  /^(-)?P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/**
 * xs:duration to seconds. Years and months have no fixed length; they are taken as
 * 365 and 30 days, which only matters for VOD durations nobody writes that way.
 * @example parseXsDuration('PT1M2.5S') // 62.5
 */
export function parseXsDuration(text: string): number | undefined {
  const s = text.trim();
  const m = DURATION_RE.exec(s);
  if (!m || s === "P" || s.endsWith("T")) return undefined;
  const n = (i: number): number => (m[i] === undefined ? 0 : Number(m[i]));
  const seconds =
    n(2) * 365 * 86400 + n(3) * 30 * 86400 + n(4) * 86400 + n(5) * 3600 + n(6) * 60 + n(7);
  return m[1] ? -seconds : seconds;
}

const DATETIME_RE =
  /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * xs:dateTime to epoch milliseconds. A value without a zone is taken as UTC (DASH-IF IOP
 * requires UTC; JavaScript's Date.parse would otherwise read it as local time).
 */
export function parseXsDateTime(text: string): number | undefined {
  const s = text.trim();
  const m = DATETIME_RE.exec(s);
  if (!m) return undefined;
  const frac = m[7] ? m[7].slice(0, 4).padEnd(4, "0") : ".000";
  const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${frac}${m[8] ?? "Z"}`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** xs:boolean. */
export function parseXsBoolean(text: string): boolean | undefined {
  const s = text.trim();
  if (s === "true" || s === "1") return true;
  if (s === "false" || s === "0") return false;
  return undefined;
}

/** xs:unsignedInt style value that must fit a JS number exactly. */
export function parseUnsigned(text: string): number | undefined {
  const s = text.trim();
  if (!/^\d+$/.test(s)) return undefined;
  const v = Number(s);
  return Number.isSafeInteger(v) ? v : undefined;
}

/** xs:unsignedLong as bigint (S@t, @presentationTimeOffset may exceed 2^53). */
export function parseUnsignedBig(text: string): bigint | undefined {
  const s = text.trim();
  return /^\d+$/.test(s) ? BigInt(s) : undefined;
}

/** xs:double, plus the MPD's "INF" for availabilityTimeOffset. */
export function parseDouble(text: string): number | undefined {
  const s = text.trim();
  if (s === "INF") return Infinity;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined;
  return Number(s);
}

/**
 * FrameRateType (ISO/IEC 23009-1 5.3.7.2, `[0-9]+(/[1-9][0-9]*)?`).
 * @example parseFrameRate('30000/1001')?.fps // 29.97002997002997
 */
export function parseFrameRate(text: string): FrameRate | undefined {
  const t = text.trim();
  // Not a FrameRateType, but written by real packagers ("30.0", "29.97"): read as a decimal
  // rather than reject a whole MPD over a value only the master playlist's FRAME-RATE uses.
  const decimal = /^(\d{1,6})\.(\d{1,6})$/.exec(t);
  if (decimal) {
    const denominator = 10 ** decimal[2]!.length;
    const numerator = Number(decimal[1]) * denominator + Number(decimal[2]);
    return { numerator, denominator, fps: numerator / denominator };
  }
  const m = /^(\d+)(?:\/([1-9]\d*))?$/.exec(t);
  if (!m || m[1] === undefined) return undefined;
  const numerator = Number(m[1]);
  const denominator = m[2] === undefined ? 1 : Number(m[2]);
  return { numerator, denominator, fps: numerator / denominator };
}
