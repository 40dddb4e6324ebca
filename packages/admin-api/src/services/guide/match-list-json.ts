import type { Channel } from "@svc/core/catalog";
import type { ChannelMatch } from "./channel-matcher.js";

/**
 * Channels rendered by one `JSON.stringify`: one call per channel cost about twice
 * as much CPU as one per batch, and a batch is still a small piece of the answer.
 */
const BATCH = 256;

/**
 * `{"matches":[…]}` of `GET /v1/admin/epg/matches` (docs/guide.md "Matching"), one piece
 * per {@link BATCH} channels: the bytes of `JSON.stringify({ matches: channels.map(entry) })`,
 * rendered as the answer is read (`piecewiseBody`). Built whole, the answer over 40,000
 * channels was 40,000 objects and then one string of tens of MB, measured and encoded
 * again to be sent. `channels` is the catalog's list of the moment and `byChannel` one
 * finished matching: neither changes while the answer streams.
 */
export function* matchListJson(
  channels: Iterable<Channel>,
  byChannel: ReadonlyMap<string, ChannelMatch>,
  logoCandidates: (ch: Channel) => unknown,
): Generator<string, void, undefined> {
  yield '{"matches":[';
  let batch: unknown[] = [];
  let first = true;
  const flush = () => {
    // The entries of the array without its brackets.
    const text = JSON.stringify(batch).slice(1, -1);
    batch = [];
    const piece = first ? text : `,${text}`;
    first = false;
    return piece;
  };
  for (const ch of channels) {
    const m = byChannel.get(ch.id);
    batch.push({
      channel_id: ch.id,
      status: m?.status ?? "unmatched",
      ...(m?.match === undefined ? {} : { match: m.match }),
      candidates: m?.candidates ?? [],
      logo_candidates: logoCandidates(ch),
    });
    if (batch.length === BATCH) yield flush();
  }
  if (batch.length > 0) yield flush();
  yield "]}";
}
