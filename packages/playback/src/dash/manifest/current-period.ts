import type { Mpd, Period } from "./mpd-model.js";

/** The Period that is live at `serverNowMs` (the first one for a static MPD). */
export function currentPeriod(mpd: Mpd, serverNowMs: number): Period | undefined {
  if (mpd.type === "static" || mpd.availabilityStartTime === undefined) return mpd.periods[0];
  const elapsed = (serverNowMs - mpd.availabilityStartTime) / 1000;
  let current = mpd.periods[0];
  for (const p of mpd.periods) if (p.start <= elapsed) current = p;
  return current;
}
