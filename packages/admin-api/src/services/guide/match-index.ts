import type { StoredGuideChannel } from "./guide-data.js";
import { nameTokens } from "./name-normalizer.js";

/**
 * The matching index over the guide channels of the enabled sources
 * (docs/guide.md "Matching"), built once per guide version.
 *
 * Guide channels are numbered in rank order (present first, then source
 * priority), so every posting list, kept in that order, is already ranked.
 * Each distinct string (an id, a normalised name, a word) is interned once as a
 * small int, and the guide channels carrying it are one range of an Int32Array
 * (`start[id]` to `start[id + 1]`): no array or object per key. With an array
 * per key, 40,000 guide channels made about 160,000 small arrays and the build
 * was bound by their allocation and garbage collection.
 */
export interface MatchIndex {
  /** The guide channels in rank order; an entry is an index into this. */
  readonly channels: readonly StoredGuideChannel[];
  /** Lower ranks win: present ones first (0-999), then source priority. */
  readonly rank: Int32Array;
  /** The interned id of a string, or -1 when no guide channel carries it. */
  idOf(s: string): number;
  /** The interned string of an id. */
  str(id: number): string;
  /** Entries whose xmltv id, normalised display name, id read as a name, word is this. */
  readonly byId: Postings;
  readonly byKey: Postings;
  readonly byIdKey: Postings;
  readonly byWord: Postings;
  /** The interned id of each entry's xmltv id. */
  readonly xmltvIdOf: Int32Array;
  /** Each entry's normalised display names (and channel numbers): ids in `keys[keyStart[e]…keyStart[e+1]]`. */
  readonly keyStart: Int32Array;
  readonly keys: Int32Array;
  /** Each entry's id read as a name (`BBCOne.uk` → `bbcone` and, its words split, `bbc1`). */
  readonly idKeyStart: Int32Array;
  readonly idKeys: Int32Array;
}

/** Entries by interned string: `list[start[id]…start[id + 1]]`, in entry (rank) order. */
export interface Postings {
  readonly start: Int32Array;
  readonly list: Int32Array;
}

/** Appends (string id, entry) pairs in entry order; {@link freeze} lays them out by id. */
class PostingsBuilder {
  private readonly ids: number[] = [];
  private readonly entries: number[] = [];

  add(id: number, entry: number): void {
    this.ids.push(id);
    this.entries.push(entry);
  }

  /** An entry carrying a string twice is listed once (its pairs are adjacent per id). */
  freeze(idCount: number): Postings {
    const { ids, entries } = this;
    const start = new Int32Array(idCount + 1);
    const last = new Int32Array(idCount).fill(-1);
    for (let p = 0; p < ids.length; p++) {
      const id = ids[p]!;
      if (last[id] === entries[p]) ids[p] = -1;
      else {
        last[id] = entries[p]!;
        start[id + 1]!++;
      }
    }
    for (let id = 0; id < idCount; id++) start[id + 1]! += start[id]!;
    const list = new Int32Array(start[idCount]!);
    const fill = start.slice(0, idCount);
    for (let p = 0; p < ids.length; p++) {
      const id = ids[p]!;
      if (id >= 0) list[fill[id]!++] = entries[p]!;
    }
    return { start, list };
  }
}

/**
 * Builds the index over `guideChannels` of the sources in `sourceOrder` (their
 * ids in priority order; channels of other sources are left out).
 */
export function buildMatchIndex(
  guideChannels: readonly StoredGuideChannel[],
  sourceOrder: readonly string[],
): MatchIndex {
  const priority = new Map(sourceOrder.map((id, i) => [id, i]));
  // Ranks are few (two per source): one stable pass per rank instead of a comparison sort.
  const rankOf = guideChannels.map((gc) =>
    priority.has(gc.sourceId) ? (gc.present ? 0 : 1_000) + priority.get(gc.sourceId)! : -1,
  );
  const channels: StoredGuideChannel[] = [];
  const ranks: number[] = [];
  for (const r of [...new Set(rankOf)].filter((r) => r >= 0).sort((a, b) => a - b))
    for (let i = 0; i < guideChannels.length; i++)
      if (rankOf[i] === r) {
        channels.push(guideChannels[i]!);
        ranks.push(r);
      }

  const interned = new Map<string, number>();
  const strings: string[] = [];
  const intern = (s: string) => {
    let id = interned.get(s);
    if (id === undefined) {
      id = strings.length;
      interned.set(s, id);
      strings.push(s);
    }
    return id;
  };
  const n = channels.length;
  const byId = new PostingsBuilder();
  const byKey = new PostingsBuilder();
  const byIdKey = new PostingsBuilder();
  const byWord = new PostingsBuilder();
  const xmltvIdOf = new Int32Array(n);
  const keyStart = new Int32Array(n + 1);
  const idKeyStart = new Int32Array(n + 1);
  const keys: number[] = [];
  const idKeys: number[] = [];
  /** Adds the key of `tokens` to `into` unless empty or already among the entry's (from `from`). */
  const addKey = (tokens: readonly string[], into: number[], from: number) => {
    const key = tokens.length === 1 ? tokens[0]! : tokens.join("");
    if (key === "") return -1;
    // Compared before interning: an id's two spellings usually give one key.
    for (let i = from; i < into.length; i++) if (strings[into[i]!] === key) return -1;
    const id = intern(key);
    into.push(id);
    return id;
  };
  for (let e = 0; e < n; e++) {
    const gc = channels[e]!;
    xmltvIdOf[e] = intern(gc.xmltvId);
    byId.add(xmltvIdOf[e]!, e);
    keyStart[e] = keys.length;
    for (const name of gc.displayNames) {
      const tokens = nameTokens(name);
      const id = addKey(tokens, keys, keyStart[e]!);
      if (id >= 0) byKey.add(id, e);
      // Words of the display names (of the id when it has none), for fuzzy candidates.
      for (const t of tokens) byWord.add(intern(t), e);
    }
    idKeyStart[e] = idKeys.length;
    for (const name of idAsNames(gc.xmltvId)) {
      const tokens = nameTokens(name);
      const id = addKey(tokens, idKeys, idKeyStart[e]!);
      if (id >= 0) byIdKey.add(id, e);
      if (gc.displayNames.length === 0) for (const t of tokens) byWord.add(intern(t), e);
    }
  }
  keyStart[n] = keys.length;
  idKeyStart[n] = idKeys.length;
  const count = strings.length;
  return {
    channels,
    rank: Int32Array.from(ranks),
    idOf: (s) => interned.get(s) ?? -1,
    str: (id) => strings[id]!,
    byId: byId.freeze(count),
    byKey: byKey.freeze(count),
    byIdKey: byIdKey.freeze(count),
    byWord: byWord.freeze(count),
    xmltvIdOf,
    keyStart,
    keys: Int32Array.from(keys),
    idKeyStart,
    idKeys: Int32Array.from(idKeys),
  };
}

/**
 * The id without `@feed` and its last dot segment (a country or domain), as
 * written and with camel case and digits split into words: `SilverbirdTV.ng`
 * gives "SilverbirdTV" and "Silverbird TV".
 */
export function idAsNames(xmltvId: string): string[] {
  const at = xmltvId.indexOf("@");
  const id = at < 0 ? xmltvId : xmltvId.slice(0, at);
  const dot = id.lastIndexOf(".");
  const stem = dot > 0 ? id.slice(0, dot) : id;
  const split = PRINTABLE_ASCII.test(stem)
    ? splitAsciiWords(stem)
    : stem
        .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
        .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
        .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_m, a, b, c, d) =>
          a === undefined ? `${c} ${d}` : `${a} ${b}`,
        );
  return split === stem ? [stem] : [stem, split];
}
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

const isLower = (c: number) => c >= 97 && c <= 122;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * The three rules of the Unicode branch above with ASCII classes, in one scan
 * (nearly every id is ASCII): a space between a lower and an upper case letter
 * ("SilverbirdTV" → "Silverbird TV"); before the last capital of a run followed
 * by a lower case letter ("HBOFamily" → "HBO Family"); between a letter and a
 * digit, pairwise from the left as a global replace takes them ("a1b" →
 * "a 1b": the "1" of a pair does not start the next one).
 */
function splitAsciiWords(stem: string): string {
  let out = "";
  let from = 0;
  let pairEnd = -1;
  for (let i = 0; i + 1 < stem.length; i++) {
    const a = stem.charCodeAt(i);
    const b = stem.charCodeAt(i + 1);
    let space = false;
    if (isLower(a) && isUpper(b)) space = true;
    else if (isUpper(a) && isUpper(b) && i + 2 < stem.length && isLower(stem.charCodeAt(i + 2)))
      space = true;
    else if (i !== pairEnd && ((isDigit(a) && isLetter(b)) || (isLetter(a) && isDigit(b)))) {
      space = true;
      pairEnd = i + 1;
    }
    if (space) {
      out += `${stem.slice(from, i + 1)} `;
      from = i + 1;
    }
  }
  return from === 0 ? stem : out + stem.slice(from);
}
const isLetter = (c: number) => isLower(c) || isUpper(c);
