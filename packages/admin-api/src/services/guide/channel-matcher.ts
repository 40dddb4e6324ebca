import type { Channel } from "@svc/core/catalog";
import type { StoredGuideChannel } from "./guide-data.js";
import { foldName, nameKey, nameTokens } from "./name-normalizer.js";
import { keySimilarity, numbersOf } from "./name-similarity.js";

export type MatchMethod = "epg_id" | "epg_name" | "name";

/**
 * Why a guide channel was matched or offered (docs/guide.md "Matching"):
 * `exact_id` its id equals the channel's `epg_id` (or id); `exact_name` a
 * display name normalises like the channel's name; `lcn` that equal name is a
 * channel number; `id_name` the guide channel's id, read as a name, does;
 * `fuzzy` a similarity score.
 */
export type MatchReason = "exact_id" | "exact_name" | "lcn" | "id_name" | "fuzzy";

/** A guide channel offered for a gateway channel. */
export interface MatchCandidate {
  readonly source_id: string;
  readonly epg_id: string;
  readonly display_name: string;
  /** 1 for an exact id or name; the fuzzy similarity of the names otherwise. */
  readonly score: number;
  readonly reason: MatchReason;
  readonly present: boolean;
}

/** The outcome for one gateway channel (spec "Guide source", match entry). */
export interface ChannelMatch {
  readonly channelId: string;
  readonly status: "matched" | "stale" | "unmatched";
  readonly match?: {
    readonly source_id: string;
    readonly epg_id: string;
    readonly display_name: string;
    readonly method: MatchMethod;
    readonly reason: MatchReason;
    /** 1 for an exact match, the fuzzy similarity otherwise. */
    readonly score: number;
    /** The operator fixed it through the channel's `epg_id` / `epg_source`. */
    readonly manual: boolean;
    readonly icon: string;
  };
  readonly candidates: readonly MatchCandidate[];
  /** Guide channels whose programmes the channel shows: the match's source first. */
  readonly guideRefs: readonly { readonly sourceId: string; readonly xmltvId: string }[];
}

const MAX_CANDIDATES = 5;
/**
 * Tokens shared by more guide channels than this ("tv", "news") do not gather
 * candidates: 5 % of the guide channels, between 50 and 2,000.
 */
const commonToken = (channels: number) => Math.min(2_000, Math.max(50, channels / 20));
/** Fuzzy similarity is computed for this many guide channels sharing the most words. */
const FUZZY_POOL = 32;
/** A fuzzy candidate is offered from this similarity on. */
export const FUZZY_CANDIDATE = 0.5;
/**
 * A fuzzy candidate is applied automatically only from this similarity on, when
 * its numbers equal the channel's (no "+1" or "2" differs) and the next other
 * guide channel scores at least {@link FUZZY_MARGIN} less (docs/guide.md "Matching").
 */
export const FUZZY_AUTO = 0.9;
export const FUZZY_MARGIN = 0.05;

interface Indexed {
  readonly gc: StoredGuideChannel;
  readonly rank: number;
  /** Normalised display names (and channel numbers). */
  readonly keys: readonly string[];
  /** The id read as a name: `BBCOne.uk` → `bbcone` and, its words split, `bbc1`. */
  readonly idKeys: readonly string[];
}

/**
 * The id without `@feed` and its last dot segment (a country or domain), as
 * written and with camel case and digits split into words: `SilverbirdTV.ng`
 * gives "SilverbirdTV" and "Silverbird TV".
 */
function idAsNames(xmltvId: string): string[] {
  const id = xmltvId.split("@")[0]!;
  const dot = id.lastIndexOf(".");
  const stem = dot > 0 ? id.slice(0, dot) : id;
  // ASCII ids (nearly all) take the same rules with ASCII classes, several times faster.
  const split = ASCII.test(stem)
    ? stem
        .replace(/([a-z])([A-Z])/g, "$1 $2")
        .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
        .replace(/([A-Za-z])([0-9])|([0-9])([A-Za-z])/g, (_m, a, b, c, d) =>
          a === undefined ? `${c} ${d}` : `${a} ${b}`,
        )
    : stem
        .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
        .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
        .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_m, a, b, c, d) =>
          a === undefined ? `${c} ${d}` : `${a} ${b}`,
        );
  return split === stem ? [stem] : [stem, split];
}
const ASCII = /^[\x20-\x7e]*$/;

/**
 * Builds the matching index over the guide channels of the enabled sources
 * (`sourceOrder`: their ids in priority order) once per guide version; matching
 * one channel is then a few map lookups, so 40,000 channels match in well under
 * a second.
 */
export function createChannelMatcher(
  guideChannels: readonly StoredGuideChannel[],
  sourceOrder: readonly string[],
) {
  const priority = new Map(sourceOrder.map((id, i) => [id, i]));
  // Present channels first, then source priority: the postings below keep this order.
  const ranked0 = guideChannels
    .filter((gc) => priority.has(gc.sourceId))
    .map((gc) => ({ gc, rank: (gc.present ? 0 : 1_000) + priority.get(gc.sourceId)! }))
    .sort((a, b) => a.rank - b.rank);
  const common = commonToken(ranked0.length);
  const byId = new Map<string, Indexed[]>();
  const byKey = new Map<string, Indexed[]>();
  const byIdKey = new Map<string, Indexed[]>();
  const byToken = new Map<string, Indexed[]>();
  // One channel's entries are pushed together, so a repeat is always the list's last.
  const push = <K>(m: Map<K, Indexed[]>, k: K, v: Indexed) => {
    const list = m.get(k);
    if (list === undefined) m.set(k, [v]);
    else if (list[list.length - 1] !== v) list.push(v);
  };
  const keysOf = (lists: string[][]) => {
    const keys: string[] = [];
    for (const t of lists) {
      const k = t.join("");
      if (k !== "" && !keys.includes(k)) keys.push(k);
    }
    return keys;
  };
  for (const { gc, rank } of ranked0) {
    const tokenLists = gc.displayNames.map(nameTokens);
    const idTokenLists = idAsNames(gc.xmltvId).map(nameTokens);
    const x: Indexed = { gc, rank, keys: keysOf(tokenLists), idKeys: keysOf(idTokenLists) };
    push(byId, gc.xmltvId, x);
    for (const k of x.keys) push(byKey, k, x);
    for (const k of x.idKeys) push(byIdKey, k, x);
    // Words of the display names (of the id when it has none), for fuzzy candidates.
    for (const tokens of tokenLists.length > 0 ? tokenLists : idTokenLists)
      for (const t of tokens) push(byToken, t, x);
  }
  // Words too common to gather candidates are never read: their postings go.
  for (const [t, posting] of byToken) if (posting.length > common) byToken.delete(t);

  const candidate = (x: Indexed, score: number, reason: MatchReason): MatchCandidate => ({
    source_id: x.gc.sourceId,
    epg_id: x.gc.xmltvId,
    display_name: x.gc.displayNames[0] ?? x.gc.xmltvId,
    score: Math.round(score * 1000) / 1000,
    reason,
    present: x.gc.present,
  });
  const exactReason = (key: string): MatchReason => (/^\d+$/.test(key) ? "lcn" : "exact_name");

  /**
   * Exact names first (display names, then ids read as names), then guide
   * channels sharing a word, by similarity; `inSource` narrows every step.
   */
  function ranked(
    raw: string,
    nameTokenList: readonly string[],
    inSource: (x: Indexed) => boolean,
  ): { exact: Indexed[]; out: MatchCandidate[]; fuzzy: { x: Indexed; score: number }[] } {
    const key = nameTokenList.join("");
    if (key === "") return { exact: [], out: [], fuzzy: [] };
    // Equal normalised names ("Planeta TV", "Planeta 4K"): of equal rank, the one
    // spelt most like the channel's name before tags were dropped comes first.
    let byName = (byKey.get(key) ?? []).filter(inSource);
    if (byName.length > 1) {
      const spelt = foldName(raw);
      const closeness = (x: Indexed) =>
        Math.max(0, ...x.gc.displayNames.map((n) => keySimilarity(spelt, foldName(n))));
      byName = byName
        .map((x) => ({ x, c: closeness(x) }))
        .sort((a, b) => a.x.rank - b.x.rank || b.c - a.c)
        .map(({ x }) => x);
    }
    const byId = (byIdKey.get(key) ?? []).filter((x) => inSource(x) && !byName.includes(x));
    const exact = [...byName, ...byId];
    const out = [
      ...byName.map((x) => candidate(x, 1, exactReason(key))),
      ...byId.map((x) => candidate(x, 1, "id_name")),
    ].slice(0, MAX_CANDIDATES);
    // Guide channels sharing words, the most shared first; only the first few are scored.
    const shared = new Map<Indexed, number>();
    for (const t of new Set(nameTokenList)) {
      const posting = byToken.get(t);
      if (posting === undefined) continue;
      for (const x of posting) shared.set(x, (shared.get(x) ?? 0) + 1);
    }
    const pool = [...shared]
      .filter(([x]) => !exact.includes(x) && inSource(x))
      .sort((a, b) => b[1] - a[1] || a[0].rank - b[0].rank)
      .slice(0, FUZZY_POOL);
    const fuzzy: { x: Indexed; score: number }[] = [];
    for (const [x] of pool) {
      let score = 0;
      for (const k of x.keys.length > 0 ? x.keys : x.idKeys)
        score = Math.max(score, keySimilarity(key, k));
      if (score >= FUZZY_CANDIDATE) fuzzy.push({ x, score });
    }
    fuzzy.sort((a, b) => b.score - a.score || a.x.rank - b.x.rank);
    for (const f of fuzzy.slice(0, MAX_CANDIDATES - out.length))
      out.push(candidate(f.x, f.score, "fuzzy"));
    return { exact, out, fuzzy };
  }

  /** The fuzzy candidate applied automatically, if one clears every rule of {@link FUZZY_AUTO}. */
  function autoFuzzy(key: string, fuzzy: readonly { x: Indexed; score: number }[]) {
    const best = fuzzy[0];
    if (best === undefined || best.score < FUZZY_AUTO) return undefined;
    const next = fuzzy.find((f) => f.x.gc.xmltvId !== best.x.gc.xmltvId);
    if (next !== undefined && next.score > best.score - FUZZY_MARGIN) return undefined;
    const numbers = numbersOf(key);
    const keys = best.x.keys.length > 0 ? best.x.keys : best.x.idKeys;
    const bestKey = keys.reduce((a, k) => (keySimilarity(key, k) > keySimilarity(key, a) ? k : a));
    return numbersOf(bestKey) === numbers ? best : undefined;
  }

  function result(
    ch: Channel,
    chosen: Indexed | undefined,
    how: { method: MatchMethod; reason: MatchReason; score: number; manual: boolean },
    candidates: MatchCandidate[],
  ): ChannelMatch {
    if (chosen === undefined)
      return { channelId: ch.id, status: "unmatched", candidates, guideRefs: [] };
    const refs = [chosen, ...(byId.get(chosen.gc.xmltvId) ?? []).filter((x) => x !== chosen)];
    return {
      channelId: ch.id,
      status: chosen.gc.present ? "matched" : "stale",
      match: {
        source_id: chosen.gc.sourceId,
        epg_id: chosen.gc.xmltvId,
        display_name: chosen.gc.displayNames[0] ?? chosen.gc.xmltvId,
        method: how.method,
        reason: how.reason,
        score: Math.round(how.score * 1000) / 1000,
        manual: how.manual,
        icon: chosen.gc.icon || (refs.find((x) => x.gc.icon !== "")?.gc.icon ?? ""),
      },
      candidates,
      guideRefs: refs.map((x) => ({ sourceId: x.gc.sourceId, xmltvId: x.gc.xmltvId })),
    };
  }

  return {
    /**
     * Order (docs/guide.md "Matching"): `epg_id` exact (in `epg_source` when set),
     * then `epg_source` + `epg_name` (both the operator's choice, always winning),
     * then a guide id equal to the channel's id, then the normalised `epg_name`
     * or title equal to a display name, then to an id read as a name, and only
     * then a fuzzy candidate above {@link FUZZY_AUTO}.
     */
    match(ch: Channel): ChannelMatch {
      const name = ch.epg_name || ch.title;
      const tokens = nameTokens(name);
      const inSource = (x: Indexed) => ch.epg_source === "" || x.gc.sourceId === ch.epg_source;
      const exactId = { method: "epg_id", reason: "exact_id", score: 1 } as const;
      if (ch.epg_id !== "") {
        const hit = (byId.get(ch.epg_id) ?? []).find(inSource);
        if (hit !== undefined)
          return result(ch, hit, { ...exactId, manual: true }, [candidate(hit, 1, "exact_id")]);
        // The operator's id is not (yet) in any source: no automatic guess replaces it.
        return result(
          ch,
          undefined,
          { ...exactId, manual: true },
          ranked(name, tokens, inSource).out,
        );
      }
      if (ch.epg_source !== "" && ch.epg_name !== "") {
        const key = nameKey(ch.epg_name);
        const hit = (byKey.get(key) ?? []).find(inSource);
        if (hit !== undefined)
          return result(
            ch,
            hit,
            { method: "epg_name", reason: exactReason(key), score: 1, manual: true },
            [candidate(hit, 1, exactReason(key))],
          );
      }
      // An `epg_source` alone still narrows the automatic match to that source.
      const sameId = (byId.get(ch.id) ?? []).find(inSource);
      const { exact, out, fuzzy } = ranked(name, tokens, inSource);
      if (sameId !== undefined)
        return result(ch, sameId, { ...exactId, manual: false }, [
          candidate(sameId, 1, "exact_id"),
          ...out.filter((c) => c.epg_id !== sameId.gc.xmltvId).slice(0, MAX_CANDIDATES - 1),
        ]);
      const key = tokens.join("");
      const first = exact[0];
      if (first !== undefined) {
        const reason = first.keys.includes(key) ? exactReason(key) : "id_name";
        return result(ch, first, { method: "name", reason, score: 1, manual: false }, out);
      }
      const auto = autoFuzzy(key, fuzzy);
      if (auto !== undefined)
        return result(
          ch,
          auto.x,
          { method: "name", reason: "fuzzy", score: auto.score, manual: false },
          out,
        );
      return result(ch, undefined, { ...exactId, manual: false }, out);
    },
  };
}

export type ChannelMatcher = ReturnType<typeof createChannelMatcher>;
