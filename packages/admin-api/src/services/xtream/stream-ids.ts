import type { Channel } from "@svc/core/catalog";

/** Stream ids are 31-bit positive integers: every Xtream app stores them in a signed int. */
const ID_SPACE = 0x7fff_ffff;

/** FNV-1a (32-bit) of the UTF-8 bytes of `text`. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The preferred id of a channel: 1..2^31-1, from its channel id alone. */
export function preferredStreamId(channelId: string): number {
  return (fnv1a(channelId) % ID_SPACE) + 1;
}

/**
 * Xtream `stream_id`s of the channels (extensions.md "Xtream Codes output": stable per
 * channel). A channel's id is the FNV-1a hash of its channel id, so it depends on nothing
 * else: not on sort order, groups, other channels or the instance (a cluster agrees without
 * storing anything). Two channel ids that hash alike (about one chance in 4,000 among 1,000
 * channels) are told apart by probing: the smaller channel id keeps the hash, the other takes
 * the next free number. Only such a pair's later member can change id, and only when a
 * colliding channel is added or removed (docs/xtream.md "Stream ids").
 */
export class StreamIds {
  readonly #byStream = new Map<number, string>();
  readonly #byChannel = new Map<string, number>();

  constructor(channels: Iterable<Pick<Channel, "id">>) {
    const ids = [...channels].map((ch) => ch.id).sort();
    for (const id of ids) {
      let n = preferredStreamId(id);
      while (this.#byStream.has(n)) n = (n % ID_SPACE) + 1;
      this.#byStream.set(n, id);
      this.#byChannel.set(id, n);
    }
  }

  /** The stream id of a channel of the list. */
  of(channelId: string): number | undefined {
    return this.#byChannel.get(channelId);
  }

  /** The channel id of a stream id. */
  channel(streamId: number): string | undefined {
    return this.#byStream.get(streamId);
  }
}

/**
 * The Xtream `category_id` of a channel group (extensions.md: one category per channel group):
 * a decimal string of the group title's hash, 2..2^31-1, stable whatever the order or number
 * of groups; channels without a group share the category "1" ("Uncategorized").
 */
export function categoryIdOf(group: string): string {
  return group === "" ? "1" : String((fnv1a(`group\u0000${group}`) % (ID_SPACE - 1)) + 2);
}

/** The category name of a channel group. */
export function categoryNameOf(group: string): string {
  return group === "" ? "Uncategorized" : group;
}
