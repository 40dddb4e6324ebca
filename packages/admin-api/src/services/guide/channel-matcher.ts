import type { Channel } from "@svc/core/catalog";
import type { StoredGuideChannel } from "./guide-data.js";
import { buildMatchIndex, type Postings } from "./match-index.js";
import { foldName, nameTokens } from "./name-normalizer.js";
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

/** A scored fuzzy candidate: an entry of the index. */
interface Fuzzy {
  readonly e: number;
  readonly score: number;
}
interface Ranked {
  readonly exact: readonly number[];
  readonly out: MatchCandidate[];
  readonly fuzzy: readonly Fuzzy[];
}
const NOTHING: Ranked = { exact: [], out: [], fuzzy: [] };
const exactReason = (key: string): MatchReason => (/^\d+$/.test(key) ? "lcn" : "exact_name");

/**
 * Builds the matching index over the guide channels of the enabled sources
 * (`sourceOrder`: their ids in priority order) once per guide version
 * (match-index.ts); matching one channel is then a few map lookups and at most
 * {@link FUZZY_POOL} similarity scores.
 */
export function createChannelMatcher(
  guideChannels: readonly StoredGuideChannel[],
  sourceOrder: readonly string[],
) {
  const ix = buildMatchIndex(guideChannels, sourceOrder);
  const { channels, rank } = ix;
  const common = commonToken(channels.length);
  // Per-match scratch: words shared with each entry, and which entries were touched.
  const shared = new Int32Array(channels.length);
  const touched: number[] = [];

  /** The entries of posting `id` of `p` (none for -1) in source `source` ("" for any). */
  function postings(p: Postings, id: number, source: string): number[] {
    const out: number[] = [];
    if (id < 0) return out;
    for (let i = p.start[id]!; i < p.start[id + 1]!; i++) {
      const e = p.list[i]!;
      if (source === "" || channels[e]!.sourceId === source) out.push(e);
    }
    return out;
  }
  /** The first entry of posting `id` of `p` in source `source` ("" for any), or undefined. */
  function firstIn(p: Postings, id: number, source: string): number | undefined {
    if (id < 0) return undefined;
    for (let i = p.start[id]!; i < p.start[id + 1]!; i++) {
      const e = p.list[i]!;
      if (source === "" || channels[e]!.sourceId === source) return e;
    }
    return undefined;
  }
  /** The entry's display-name keys, else its id-name keys (what a fuzzy score compares). */
  function fuzzyKeys(e: number): string[] {
    let from = ix.keyStart[e]!;
    let to = ix.keyStart[e + 1]!;
    let keys = ix.keys;
    if (from === to) {
      from = ix.idKeyStart[e]!;
      to = ix.idKeyStart[e + 1]!;
      keys = ix.idKeys;
    }
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(ix.str(keys[i]!));
    return out;
  }
  const candidate = (e: number, score: number, reason: MatchReason): MatchCandidate => {
    const gc = channels[e]!;
    return {
      source_id: gc.sourceId,
      epg_id: gc.xmltvId,
      display_name: gc.displayNames[0] ?? gc.xmltvId,
      score: Math.round(score * 1000) / 1000,
      reason,
      present: gc.present,
    };
  };

  /**
   * Exact names first (display names, then ids read as names), then guide
   * channels sharing a word, by similarity; `source` ("" for any) narrows every step.
   */
  function ranked(raw: string, tokens: readonly string[], source: string): Ranked {
    const key = tokens.join("");
    if (key === "") return NOTHING;
    const keyId = ix.idOf(key);
    let byName = postings(ix.byKey, keyId, source);
    // Equal normalised names ("Planeta TV", "Planeta 4K"): of equal rank, the one
    // spelt most like the channel's name before tags were dropped comes first.
    if (byName.length > 1) {
      const spelt = foldName(raw);
      const closeness = (e: number) =>
        Math.max(0, ...channels[e]!.displayNames.map((n) => keySimilarity(spelt, foldName(n))));
      byName = byName
        .map((e) => ({ e, c: closeness(e) }))
        .sort((a, b) => rank[a.e]! - rank[b.e]! || b.c - a.c)
        .map(({ e }) => e);
    }
    const byIdName = postings(ix.byIdKey, keyId, source).filter((e) => !byName.includes(e));
    const exact = byName.length === 0 ? byIdName : [...byName, ...byIdName];
    const out: MatchCandidate[] = [];
    for (const e of exact) {
      if (out.length === MAX_CANDIDATES) break;
      out.push(candidate(e, 1, out.length < byName.length ? exactReason(key) : "id_name"));
    }
    // Guide channels sharing words, the most shared first; only the first few are scored.
    for (let t = 0; t < tokens.length; t++) {
      if (tokens.indexOf(tokens[t]!, 0) !== t) continue;
      const id = ix.idOf(tokens[t]!);
      if (id < 0) continue;
      const from = ix.byWord.start[id]!;
      const to = ix.byWord.start[id + 1]!;
      if (to - from > common) continue;
      for (let i = from; i < to; i++) {
        const e = ix.byWord.list[i]!;
        if (shared[e] === 0) touched.push(e);
        shared[e]!++;
      }
    }
    const pool: { e: number; n: number }[] = [];
    for (const e of touched) {
      if (!exact.includes(e) && (source === "" || channels[e]!.sourceId === source))
        pool.push({ e, n: shared[e]! });
      shared[e] = 0;
    }
    touched.length = 0;
    pool.sort((a, b) => b.n - a.n || rank[a.e]! - rank[b.e]!);
    const fuzzy: Fuzzy[] = [];
    for (let i = 0; i < pool.length && i < FUZZY_POOL; i++) {
      const { e } = pool[i]!;
      let score = 0;
      for (const k of fuzzyKeys(e)) score = Math.max(score, keySimilarity(key, k));
      if (score >= FUZZY_CANDIDATE) fuzzy.push({ e, score });
    }
    fuzzy.sort((a, b) => b.score - a.score || rank[a.e]! - rank[b.e]!);
    for (let i = 0; i < fuzzy.length && out.length < MAX_CANDIDATES; i++)
      out.push(candidate(fuzzy[i]!.e, fuzzy[i]!.score, "fuzzy"));
    return { exact, out, fuzzy };
  }

  /** The fuzzy candidate applied automatically, if one clears every rule of {@link FUZZY_AUTO}. */
  function autoFuzzy(key: string, fuzzy: readonly Fuzzy[]): Fuzzy | undefined {
    const best = fuzzy[0];
    if (best === undefined || best.score < FUZZY_AUTO) return undefined;
    const bestId = ix.xmltvIdOf[best.e];
    const next = fuzzy.find((f) => ix.xmltvIdOf[f.e] !== bestId);
    if (next !== undefined && next.score > best.score - FUZZY_MARGIN) return undefined;
    const bestKey = fuzzyKeys(best.e).reduce((a, k) =>
      keySimilarity(key, k) > keySimilarity(key, a) ? k : a,
    );
    return numbersOf(bestKey) === numbersOf(key) ? best : undefined;
  }

  function result(
    ch: Channel,
    chosen: number | undefined,
    how: { method: MatchMethod; reason: MatchReason; score: number; manual: boolean },
    candidates: MatchCandidate[],
  ): ChannelMatch {
    if (chosen === undefined)
      return { channelId: ch.id, status: "unmatched", candidates, guideRefs: [] };
    const gc = channels[chosen]!;
    // The same id in other sources: their programmes fill the match's holes (docs/guide.md "Merging").
    const refs = [chosen];
    const sameId = ix.xmltvIdOf[chosen]!;
    for (let i = ix.byId.start[sameId]!; i < ix.byId.start[sameId + 1]!; i++)
      if (ix.byId.list[i] !== chosen) refs.push(ix.byId.list[i]!);
    let icon = gc.icon;
    for (let i = 0; icon === "" && i < refs.length; i++) icon = channels[refs[i]!]!.icon;
    return {
      channelId: ch.id,
      status: gc.present ? "matched" : "stale",
      match: {
        source_id: gc.sourceId,
        epg_id: gc.xmltvId,
        display_name: gc.displayNames[0] ?? gc.xmltvId,
        method: how.method,
        reason: how.reason,
        score: Math.round(how.score * 1000) / 1000,
        manual: how.manual,
        icon,
      },
      candidates,
      guideRefs: refs.map((e) => ({
        sourceId: channels[e]!.sourceId,
        xmltvId: channels[e]!.xmltvId,
      })),
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
      // The name is normalised once: its words and its key serve every step.
      const name = ch.epg_name || ch.title;
      const tokens = nameTokens(name);
      const key = tokens.join("");
      const source = ch.epg_source;
      const exactId = { method: "epg_id", reason: "exact_id", score: 1 } as const;
      if (ch.epg_id !== "") {
        const hit = firstIn(ix.byId, ix.idOf(ch.epg_id), source);
        if (hit !== undefined)
          return result(ch, hit, { ...exactId, manual: true }, [candidate(hit, 1, "exact_id")]);
        // The operator's id is not (yet) in any source: no automatic guess replaces it.
        return result(
          ch,
          undefined,
          { ...exactId, manual: true },
          ranked(name, tokens, source).out,
        );
      }
      if (source !== "" && ch.epg_name !== "") {
        // `name` is `epg_name` here, so `key` is its normalised form.
        const hit = key === "" ? undefined : firstIn(ix.byKey, ix.idOf(key), source);
        if (hit !== undefined)
          return result(
            ch,
            hit,
            { method: "epg_name", reason: exactReason(key), score: 1, manual: true },
            [candidate(hit, 1, exactReason(key))],
          );
      }
      // An `epg_source` alone still narrows the automatic match to that source.
      const sameId = firstIn(ix.byId, ix.idOf(ch.id), source);
      const { exact, out, fuzzy } = ranked(name, tokens, source);
      if (sameId !== undefined) {
        const sameXmltvId = channels[sameId]!.xmltvId;
        return result(ch, sameId, { ...exactId, manual: false }, [
          candidate(sameId, 1, "exact_id"),
          ...out.filter((c) => c.epg_id !== sameXmltvId).slice(0, MAX_CANDIDATES - 1),
        ]);
      }
      const first = exact[0];
      if (first !== undefined) {
        const keyId = ix.idOf(key);
        let byName = false;
        for (let i = ix.keyStart[first]!; i < ix.keyStart[first + 1]!; i++)
          if (ix.keys[i] === keyId) byName = true;
        const reason = byName ? exactReason(key) : "id_name";
        return result(ch, first, { method: "name", reason, score: 1, manual: false }, out);
      }
      const auto = autoFuzzy(key, fuzzy);
      if (auto !== undefined)
        return result(
          ch,
          auto.e,
          { method: "name", reason: "fuzzy", score: auto.score, manual: false },
          out,
        );
      return result(ch, undefined, { ...exactId, manual: false }, out);
    },
  };
}

export type ChannelMatcher = ReturnType<typeof createChannelMatcher>;
