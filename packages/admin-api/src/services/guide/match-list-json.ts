import type { Channel } from "@svc/core/catalog";
import type { ChannelMatch } from "./channel-matcher.js";

/**
 * `{"matches":[…]}` of `GET /v1/admin/epg/matches` (docs/guide.md "Matching"), one piece
 * per channel: the bytes of `JSON.stringify({ matches: channels.map(entry) })`, rendered as
 * the answer is read (`piecewiseBody`). Built whole, the answer over 40,000 channels was
 * 40,000 objects and then one string of tens of MB, measured and encoded again to be sent.
 * `channels` is the catalog's list of the moment and `byChannel` one finished matching:
 * neither changes while the answer streams.
 */
export function* matchListJson(
  channels: Iterable<Channel>,
  byChannel: ReadonlyMap<string, ChannelMatch>,
  logoCandidates: (ch: Channel) => unknown,
): Generator<string, void, undefined> {
  yield '{"matches":[';
  let first = true;
  for (const ch of channels) {
    const m = byChannel.get(ch.id);
    const entry = JSON.stringify({
      channel_id: ch.id,
      status: m?.status ?? "unmatched",
      ...(m?.match === undefined ? {} : { match: m.match }),
      candidates: m?.candidates ?? [],
      logo_candidates: logoCandidates(ch),
    });
    yield first ? entry : `,${entry}`;
    first = false;
  }
  yield "]}";
}
