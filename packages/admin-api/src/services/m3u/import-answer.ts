import type { ImportPlan } from "./import-plan.js";

/**
 * The import's answer `{preview, count, created, updated, skipped, entries, revisions,
 * x_tvg_url}` (with `duplicates: "fallbacks"` also `fallbacks`, the entries that became
 * fallback sources) in pieces, for `piecewiseStream`. One `JSON.stringify` of the answer to a
 * 32 MiB playlist (150,000 entries, 25 MB of JSON) held the event loop for hundreds of
 * milliseconds (issue 30 item 1); rendered a chunk per pull, each is a fraction of a
 * millisecond, and the next one waits for the socket to take the last.
 */
export function* importAnswerPieces(plan: ImportPlan, preview: boolean): Generator<string> {
  yield `{"preview":${preview},"count":${plan.entries.length},"created":${plan.counts.create},"updated":${plan.counts.update},"skipped":${plan.counts.skip},${plan.duplicates === "fallbacks" ? `"fallbacks":${plan.counts.fallback},` : ""}"entries":[`;
  for (let e = 0; e < plan.entries.length; e++) {
    yield `${e === 0 ? "" : ","}${JSON.stringify(plan.entries[e])}`;
  }
  yield `],"revisions":{`;
  let first = true;
  for (const [id, revision] of Object.entries(plan.revisions)) {
    yield `${first ? "" : ","}${JSON.stringify(id)}:${revision}`;
    first = false;
  }
  yield `},"x_tvg_url":${JSON.stringify(plan.tvgUrl)}}`;
}
