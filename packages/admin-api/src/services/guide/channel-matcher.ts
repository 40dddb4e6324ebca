import type { Channel } from "@svc/core/catalog";
import type { StoredGuideChannel } from "./guide-data.js";
import { nameKey, nameTokens } from "./name-normalizer.js";

export type MatchMethod = "epg_id" | "epg_name" | "name";

/** A guide channel offered for a gateway channel. */
export interface MatchCandidate {
  readonly source_id: string;
  readonly epg_id: string;
  readonly display_name: string;
  /** 1 for an equal normalised name; token overlap (Jaccard) otherwise. */
  readonly score: number;
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
    /** The operator fixed it through the channel's `epg_id` / `epg_source`. */
    readonly manual: boolean;
    readonly icon: string;
  };
  readonly candidates: readonly MatchCandidate[];
  /** Guide channels whose programmes the channel shows: the match's source first. */
  readonly guideRefs: readonly { readonly sourceId: string; readonly xmltvId: string }[];
}

const MAX_CANDIDATES = 5;
/** Tokens shared by more guide channels than this ("tv", "news") do not rank candidates. */
const COMMON_TOKEN = 2_000;

interface Indexed {
  readonly gc: StoredGuideChannel;
  readonly rank: number;
  readonly keys: readonly string[];
  readonly tokens: ReadonlySet<string>;
}

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
  const all: Indexed[] = guideChannels
    .filter((gc) => priority.has(gc.sourceId))
    .map((gc) => {
      const tokenLists = gc.displayNames.map(nameTokens);
      return {
        gc,
        // Present channels first, then source priority.
        rank: (gc.present ? 0 : 1_000) + priority.get(gc.sourceId)!,
        keys: [...new Set(tokenLists.map((t) => t.join("")).filter((k) => k !== ""))],
        tokens: new Set(tokenLists.flat()),
      };
    })
    .sort((a, b) => a.rank - b.rank);
  const byId = new Map<string, Indexed[]>();
  const byKey = new Map<string, Indexed[]>();
  const byToken = new Map<string, Indexed[]>();
  const push = <K>(m: Map<K, Indexed[]>, k: K, v: Indexed) => {
    const list = m.get(k);
    if (list === undefined) m.set(k, [v]);
    else if (list[list.length - 1] !== v) list.push(v);
  };
  for (const x of all) {
    push(byId, x.gc.xmltvId, x);
    for (const k of x.keys) push(byKey, k, x);
    for (const t of x.tokens) push(byToken, t, x);
  }

  const candidate = (x: Indexed, score: number): MatchCandidate => ({
    source_id: x.gc.sourceId,
    epg_id: x.gc.xmltvId,
    display_name: x.gc.displayNames[0] ?? x.gc.xmltvId,
    score: Math.round(score * 1000) / 1000,
    present: x.gc.present,
  });

  function ranked(nameTokenList: readonly string[]): MatchCandidate[] {
    const key = nameTokenList.join("");
    const exact = key === "" ? [] : (byKey.get(key) ?? []);
    const out = exact.slice(0, MAX_CANDIDATES).map((x) => candidate(x, 1));
    if (out.length >= MAX_CANDIDATES) return out;
    const tokens = new Set(nameTokenList);
    const shared = new Map<Indexed, number>();
    for (const t of tokens) {
      const posting = byToken.get(t);
      if (posting === undefined || posting.length > COMMON_TOKEN) continue;
      for (const x of posting) shared.set(x, (shared.get(x) ?? 0) + 1);
    }
    const scored = [...shared]
      .filter(([x]) => !exact.includes(x))
      .map(([x, n]) => ({ x, score: n / (tokens.size + x.tokens.size - n) }))
      .filter((s) => s.score >= 0.3)
      .sort((a, b) => b.score - a.score || a.x.rank - b.x.rank)
      .slice(0, MAX_CANDIDATES - out.length);
    return [...out, ...scored.map((s) => candidate(s.x, s.score))];
  }

  function result(
    ch: Channel,
    chosen: Indexed | undefined,
    method: MatchMethod,
    manual: boolean,
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
        method,
        manual,
        icon: chosen.gc.icon || (refs.find((x) => x.gc.icon !== "")?.gc.icon ?? ""),
      },
      candidates,
      guideRefs: refs.map((x) => ({ sourceId: x.gc.sourceId, xmltvId: x.gc.xmltvId })),
    };
  }

  return {
    /**
     * Order (docs/guide.md "Matching"): `epg_id` exact (in `epg_source` when set),
     * then `epg_source` + `epg_name`, then the normalised `epg_name` or title.
     * The first two are the operator's choice and always win.
     */
    match(ch: Channel): ChannelMatch {
      const tokens = nameTokens(ch.epg_name || ch.title);
      const inSource = (x: Indexed) => ch.epg_source === "" || x.gc.sourceId === ch.epg_source;
      if (ch.epg_id !== "") {
        const hit = (byId.get(ch.epg_id) ?? []).find(inSource);
        if (hit !== undefined) return result(ch, hit, "epg_id", true, [candidate(hit, 1)]);
        // The operator's id is not (yet) in any source: no automatic guess replaces it.
        return result(ch, undefined, "epg_id", true, ranked(tokens));
      }
      if (ch.epg_source !== "" && ch.epg_name !== "") {
        const key = nameKey(ch.epg_name);
        const hit = (byKey.get(key) ?? []).find(inSource);
        if (hit !== undefined) return result(ch, hit, "epg_name", true, [candidate(hit, 1)]);
      }
      // An `epg_source` alone still narrows the automatic match to that source.
      const candidates = ranked(tokens).filter(
        (c) => ch.epg_source === "" || c.source_id === ch.epg_source,
      );
      const key = tokens.join("");
      const chosen = key === "" ? undefined : byKey.get(key)?.find(inSource);
      return result(ch, chosen, "name", false, candidates);
    },
  };
}

export type ChannelMatcher = ReturnType<typeof createChannelMatcher>;
