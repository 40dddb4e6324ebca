import type { Channel } from "@svc/core/catalog";

/** One channel of a key's virtual tuner. */
export interface TunerChannel {
  /** HDHomeRun `GuideNumber`: a string of digits. */
  readonly guideNumber: string;
  readonly channel: Channel;
}

/**
 * The channels of a playback key's tuner, in catalog order: enabled channels in the
 * key's scope (`null`: every channel).
 *
 * `GuideNumber` rule (docs/hdhomerun.md "Channel numbers"): the channel's 1-based
 * position among **all** channels of the catalog in sort order, disabled and out-of-scope
 * ones included, so disabling a channel or narrowing a key renumbers nothing. Limits:
 * reordering channels, or adding or deleting one before another, moves the numbers
 * after it (a media server then sees new channel numbers and needs its guide mapping
 * redone).
 */
export function tunerLineup(
  catalog: readonly Channel[],
  scope: ReadonlySet<string> | null,
): TunerChannel[] {
  const out: TunerChannel[] = [];
  catalog.forEach((channel, i) => {
    if (channel.disabled || (scope !== null && !scope.has(channel.id))) return;
    out.push({ guideNumber: String(i + 1), channel });
  });
  return out;
}
