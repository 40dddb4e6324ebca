import { currentPeriod } from "./manifest/current-period.js";
import type { Mpd, Period, Representation } from "./manifest/mpd-model.js";
import type { RenditionRole } from "./scheduler/segment-cursor.js";
import type {
  FragmentTransform,
  FragmentTransformFactory,
} from "./segmenter/fragment-transform.js";
import {
  type Selection,
  type SelectionPreferences,
  selectRepresentations,
} from "./selection/representation-choice.js";

/** One rendition the native engine will publish. */
export interface PlannedRendition {
  /** File-name stem: `v0` for the video, `a0`, `a1`, … for the audio renditions. */
  readonly name: string;
  readonly role: RenditionRole;
  readonly representation: Representation;
  readonly transform: FragmentTransform;
}

/** The renditions the native engine will publish, or why the session cannot start. */
export type NativeSupport =
  | {
      readonly ok: true;
      readonly period: Period;
      readonly selection: Selection;
      readonly renditions: readonly PlannedRendition[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Plans the renditions of the current Period: the representations chosen, each with
 * its fragment transform (clear content, or decryption with the channel's keys). The
 * capability checks of the whole MPD come first, from `inspection/native-inspection.ts`
 * (the verdict the probe shows, and the only one `engine: auto` falls back on); what
 * fails here (a missing key) fails the session.
 */
export function planNativeRenditions(
  mpd: Mpd,
  serverNowMs: number,
  prefs: SelectionPreferences,
  transforms: FragmentTransformFactory,
  channelId: string,
): NativeSupport {
  const period = currentPeriod(mpd, serverNowMs);
  if (!period) return { ok: false, reason: "MPD has no Period" };
  const selection = selectRepresentations(period, prefs);
  const chosen: { name: string; role: RenditionRole; representation: Representation }[] = [];
  if (selection.video)
    chosen.push({
      name: "v0",
      role: { kind: "video" },
      representation: selection.video.representation,
    });
  for (const [i, a] of selection.audio.entries()) {
    chosen.push({
      name: `a${i}`,
      role: { kind: "audio", index: i },
      representation: a.representation,
    });
  }
  if (chosen.length === 0) return { ok: false, reason: "no video or audio representation" };
  const renditions: PlannedRendition[] = [];
  for (const c of chosen) {
    if (c.representation.addressing.kind !== "template") {
      return {
        ok: false,
        reason: `representation ${c.representation.id}: ${c.representation.addressing.reason}`,
      };
    }
    const t = transforms({ channelId, representation: c.representation });
    if (!t.ok) return { ok: false, reason: `representation ${c.representation.id}: ${t.reason}` };
    renditions.push({ ...c, transform: t.transform });
  }
  return { ok: true, period, selection, renditions };
}
