import type { ImportPlan } from "./import-plan.js";

/** Entries serialized per pull of the answer stream. */
const ENTRIES_PER_PIECE = 512;

/**
 * The import's answer `{preview, count, created, updated, skipped, entries, revisions,
 * x_tvg_url}` as a stream written a few hundred entries at a time. One `JSON.stringify` of the
 * answer to a 32 MiB playlist (150,000 entries, 25 MB of JSON) held the event loop for
 * hundreds of milliseconds (issue 30 item 1); each pull here is a fraction of a millisecond,
 * and the next one waits for the socket to take the last.
 */
export function importAnswerStream(plan: ImportPlan, preview: boolean): ReadableStream<Uint8Array> {
  const head = `{"preview":${preview},"count":${plan.entries.length},"created":${plan.counts.create},"updated":${plan.counts.update},"skipped":${plan.counts.skip},"entries":[`;
  const revisions = Object.entries(plan.revisions);
  let e = 0;
  let r = 0;
  let stage: "head" | "entries" | "revisions" | "tail" = "head";
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let text = "";
      if (stage === "head") {
        text = head;
        stage = "entries";
      } else if (stage === "entries") {
        const end = Math.min(e + ENTRIES_PER_PIECE, plan.entries.length);
        for (; e < end; e++) text += `${e === 0 ? "" : ","}${JSON.stringify(plan.entries[e])}`;
        if (e === plan.entries.length) {
          text += `],"revisions":{`;
          stage = "revisions";
        }
      } else if (stage === "revisions") {
        const end = Math.min(r + ENTRIES_PER_PIECE, revisions.length);
        for (; r < end; r++) {
          const [id, revision] = revisions[r]!;
          text += `${r === 0 ? "" : ","}${JSON.stringify(id)}:${revision}`;
        }
        if (r === revisions.length) stage = "tail";
      } else {
        controller.enqueue(encoder.encode(`},"x_tvg_url":${JSON.stringify(plan.tvgUrl)}}`));
        controller.close();
        return;
      }
      if (text !== "") controller.enqueue(encoder.encode(text));
    },
  });
}
