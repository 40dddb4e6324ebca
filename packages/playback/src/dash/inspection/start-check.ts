import { type Egress, guardRefusal } from "@svc/core/egress";
import { describeRefusal } from "../fetcher/upstream-fetch.js";
import { resolveSegmentUrl } from "../manifest/base-url.js";
import { currentPeriod } from "../manifest/current-period.js";
import type { Mpd, Representation, SegmentTemplate } from "../manifest/mpd-model.js";
import { compileTemplate, expandTemplate } from "../manifest/template-url.js";
import {
  type SelectionPreferences,
  selectRepresentations,
} from "../selection/representation-choice.js";

/**
 * Why a session cannot start and would fail the same way on every retry until the MPD
 * or the config changes: `refused`, the egress guard refuses an address the source
 * names (play requests answer 403 `forbidden`); `unplayable`, the MPD can never yield a
 * segment (502 `upstream_error`).
 */
export type StartFailureCause = "refused" | "unplayable";

export type StartCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly cause: StartFailureCause; readonly message: string };

/**
 * What a session checks once it holds the MPD and before it fetches anything else or
 * hands the source to an engine (issue 30 item 10): a source that names an address the
 * guard refuses, or that has nothing to publish, fails at once instead of starting
 * fetch loops (or ffmpeg) that wait for media that never comes. Only the guard's own
 * check runs (a name lookup at most); nothing is connected to.
 */
export async function checkSessionStart(
  egress: Pick<Egress, "routes">,
  mpd: Mpd,
  nowMs: number,
  prefs: SelectionPreferences,
): Promise<StartCheck> {
  const period = currentPeriod(mpd, nowMs);
  const chosen: Representation[] = [];
  if (period !== undefined) {
    const selection = selectRepresentations(period, prefs);
    if (selection.video) chosen.push(selection.video.representation);
    for (const a of selection.audio) chosen.push(a.representation);
    // Sets that declare no type at all (no @contentType, @mimeType or @codecs) may still
    // be media ffmpeg can probe: they keep the engine fallback, and are checked instead.
    if (chosen.length === 0)
      for (const set of period.adaptationSets)
        if (set.contentType === "unknown") chosen.push(...set.representations);
  }
  if (chosen.length === 0)
    return {
      ok: false,
      cause: "unplayable",
      message: `Period ${period?.id ?? "(none)"} has no video or audio Representation: the MPD can never yield a segment to publish`,
    };
  const checked = new Set<string>();
  for (const url of fetchTargets(mpd, chosen)) {
    const origin = originKey(url);
    if (origin === undefined || checked.has(origin)) continue;
    checked.add(origin);
    const why = await guardRefusal(egress, url);
    if (why !== undefined)
      return { ok: false, cause: "refused", message: describeRefusal(url, why) };
  }
  return { ok: true };
}

/**
 * The URLs a session fetches besides the MPD itself, in the order it needs them: the
 * MPD's Location (ISO/IEC 23009-1 5.3.1.2: where a dynamic MPD is refreshed from), then
 * per Representation its initialization and media templates resolved against its
 * BaseURL chain (5.6.4), or the BaseURL itself when it has no template (the media file).
 */
export function fetchTargets(mpd: Mpd, representations: readonly Representation[]): string[] {
  const out: string[] = [];
  if (mpd.type === "dynamic" && mpd.locations[0] !== undefined) out.push(mpd.locations[0]);
  for (const rep of representations) {
    if (rep.addressing.kind !== "template") {
      out.push(rep.baseUrl);
      continue;
    }
    const tpl = rep.addressing.template;
    if (tpl.initialization !== undefined)
      pushExpanded(out, rep, tpl, tpl.initialization, "initialization");
    pushExpanded(out, rep, tpl, tpl.media, "media");
  }
  return out;
}

/** The template's first segment (its host does not depend on the number in practice). */
function pushExpanded(
  out: string[],
  rep: Representation,
  tpl: SegmentTemplate,
  source: string,
  attribute: "media" | "initialization",
): void {
  const compiled = compileTemplate(source, "SegmentTemplate", attribute);
  if (!compiled.ok) return;
  const ref = expandTemplate(compiled.value, {
    representationId: rep.id,
    bandwidth: rep.bandwidth,
    number: tpl.startNumber,
    time: tpl.presentationTimeOffset,
  });
  try {
    out.push(resolveSegmentUrl(rep.baseUrl, ref));
  } catch {
    // the listing reports a URL that does not resolve
  }
}

function originKey(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}
