import { ZONE_ABBREVIATIONS } from "./zone-abbreviations.js";
import { wallTimeToUtc } from "./zone-offset.js";

/**
 * XMLTV date (xmltv.dtd, "All dates and times"): `YYYYMMDDhhmmss` with trailing
 * fields optional down to the year, then an optional zone: `+hhmm`/`-hhmm`
 * (also `+hh:mm` and `+hh`, as XMLTV::TZ reads them), or an abbreviation of
 * {@link ZONE_ABBREVIATIONS} (`Z`, `UTC`, `BST`, `EST`, …). A time without a
 * zone is wall-clock time in the source's `timezone`. Returns epoch seconds,
 * or undefined for a malformed value or an unknown abbreviation.
 */
export function parseXmltvTime(value: string, sourceZone: string): number | undefined {
  const m =
    /^\s*(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(?:([+-])(\d{2})(?::?(\d{2}))?|([A-Za-z]{1,5}))?\s*$/.exec(
      value,
    );
  if (m === null) return undefined;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", sign, oh, om = "00", abbr] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return undefined;
  const wall = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  // Date.UTC rolls 31 February over into March: reject instead of guessing.
  if (new Date(wall).getUTCDate() !== day) return undefined;
  let utcMs: number;
  if (sign !== undefined) {
    const offset = (Number(oh) * 60 + Number(om)) * 60_000;
    if (Number(oh) > 14 || Number(om) > 59) return undefined;
    utcMs = sign === "+" ? wall - offset : wall + offset;
  } else if (abbr !== undefined) {
    const minutes = ZONE_ABBREVIATIONS.get(abbr.toUpperCase());
    if (minutes === undefined) return undefined;
    utcMs = wall - minutes * 60_000;
  } else {
    utcMs = wallTimeToUtc(wall, sourceZone);
  }
  return Math.floor(utcMs / 1000);
}

/** An instant as XMLTV writes it in the gateway's output: always UTC, `+0000`. */
export function formatXmltvTime(epochSec: number): string {
  const d = new Date(epochSec * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())} +0000`;
}
