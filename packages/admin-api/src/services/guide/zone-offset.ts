/**
 * Wall-clock time in an IANA zone → UTC instant, with the zone rules of the
 * runtime's ICU (`Intl`), never a hand-written offset table.
 *
 * DST resolution (docs/guide.md "Times"), as Temporal's `compatible` mode and
 * RFC 5545 3.3.5 do it:
 * - gap (a local time that does not exist, the clocks jump forward): the time is
 *   read with the offset in force before the jump, so it lands after the gap by
 *   the gap's length (02:30 on a 02:00→03:00 spring-forward day is 03:30);
 * - overlap (a local time that occurs twice, the clocks fall back): the earlier
 *   instant, i.e. the offset in force before the change.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** IANA zone names as written in XMLTV configs: `Europe/Berlin`, `UTC`, `Etc/GMT+5`. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/** True for a zone name the runtime's time-zone database knows. */
export function isIanaZone(zone: string): boolean {
  if (!ZONE_NAME.test(zone)) return false;
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

// Offsets per zone and quarter hour: every real transition falls on a quarter hour,
// and a guide holds millions of times in a few thousand distinct quarter hours.
const QUARTER_MS = 900_000;
const offsetCache = new Map<string, Map<number, number>>();

/** Offset of `zone` from UTC at the instant `utcMs`, in milliseconds (east positive). */
export function zoneOffsetMs(zone: string, utcMs: number): number {
  let perZone = offsetCache.get(zone);
  if (perZone === undefined) {
    perZone = new Map();
    offsetCache.set(zone, perZone);
  }
  const quarter = Math.floor(utcMs / QUARTER_MS);
  const cached = perZone.get(quarter);
  if (cached !== undefined) return cached;
  const parts = formatterFor(zone).formatToParts(new Date(quarter * QUARTER_MS));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"), n("second"));
  const offset = wall - quarter * QUARTER_MS;
  if (perZone.size > 100_000) perZone.clear();
  perZone.set(quarter, offset);
  return offset;
}

/**
 * The UTC instant (epoch ms) of a wall-clock time in `zone`; `wallMs` is the wall
 * time written as if it were UTC (`Date.UTC(y, m, d, h, mi, s)`).
 */
export function wallTimeToUtc(wallMs: number, zone: string): number {
  // The offsets a day before and after bracket any single transition near wallMs.
  const before = zoneOffsetMs(zone, wallMs - 86_400_000);
  const after = zoneOffsetMs(zone, wallMs + 86_400_000);
  const candidates: number[] = [];
  for (const offset of before === after ? [before] : [before, after]) {
    const instant = wallMs - offset;
    if (zoneOffsetMs(zone, instant) === offset) candidates.push(instant);
  }
  // Overlap: both readings exist, the earlier wins. Gap: neither exists; the offset
  // before the jump moves the time forward past the gap.
  if (candidates.length > 0) return Math.min(...candidates);
  return wallMs - before;
}
