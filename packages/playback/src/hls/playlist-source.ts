import type { Channel } from "@svc/core/catalog";
import { type Egress, readBodyCapped } from "@svc/core/egress";
import type { PlaybackStats } from "../delivery/playback-stats.js";
import { withDirectives } from "./ll-hls-directives.js";
import {
  type CompiledPlaylist,
  compilePlaylist,
  looksLikePlaylist,
  type RewritePolicy,
} from "./playlist-rewriter.js";
import { channelRequestHeaders, PASSTHROUGH_STATUSES, UPSTREAM_CSP } from "./upstream-headers.js";

/** What one upstream playlist fetch came to; shared by every viewer who asked for it. */
export type PlaylistOutcome =
  | {
      readonly kind: "playlist";
      readonly compiled: CompiledPlaylist;
      readonly size: number;
      /**
       * The upstream text and the URL it came from (redirects followed): a refresh that
       * gets the same text from the same URL keeps this very outcome (see `fetchOnce`).
       */
      readonly source: { readonly text: string; readonly url: string };
    }
  /** The upstream answered something that is not a playlist (bounded by `max_playlist_bytes`). */
  | { readonly kind: "bytes"; readonly bytes: Buffer; readonly headers: Record<string, string> }
  | { readonly kind: "status"; readonly status: 404 | 410 | 416; readonly contentRange?: string }
  | { readonly kind: "refused"; readonly message: string }
  | { readonly kind: "failed"; readonly message: string }
  /** LL-HLS directives the request may not carry (400 `invalid_request`). */
  | { readonly kind: "invalid"; readonly message: string };

export interface PlaylistSource {
  /**
   * The compiled playlist at `url` for `channel`. Concurrent calls for the same
   * channel and URL share one upstream fetch; a playlist answer is then served
   * from memory for a short time bounded by its target duration, and while the next
   * fetch is in flight the previous answer is still served (for at most one more of
   * its lifetimes) instead of making every viewer wait for the refresh. `blocking`
   * (LL-HLS `_HLS_*` directives present) shares only the fetch in flight and is
   * never cached (RFC 8216bis 6.2.5.2: each blocking reload wants a newer answer).
   */
  get(channel: Channel, url: string, blocking: boolean): Promise<PlaylistOutcome>;
  /**
   * The playlist at `url` as a request with LL-HLS `directives` (from `llHlsDirectives`)
   * wants it. Every distinct `_HLS_msn` is a distinct upstream request that the cache
   * cannot share, so directives are bound to the live edge last seen at `url`
   * (RFC 8216bis 6.2.5.2): a sequence number already in the playlist is answered from
   * the cache, one more than two past the edge is `invalid`, and only the next two are
   * forwarded as blocking requests (shared by everyone asking the same).
   */
  getLive(channel: Channel, url: string, directives: string): Promise<PlaylistOutcome>;
  /**
   * What {@link get} (not blocking) would answer right now without waiting: the cached
   * playlist at `url` when it has one that is still fresh (or served while its refresh
   * is under way). Undefined in every other case, which `get` then handles.
   */
  peek(channel: Channel, url: string): (PlaylistOutcome & { kind: "playlist" }) | undefined;
  /** Upstream fetches made so far (for tests of fan-in through the status counters). */
  readonly fetches: number;
}

/** Cap of a cached playlist's life: half its target duration, at most this. */
const MAX_TTL_MS = 2_000;
/** A master playlist has no target duration; it gets this. */
const MASTER_TTL_MS = 2_000;
const MAX_ENTRIES = 2_048;
/** Bytes of playlist text held across all entries. */
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
/** RFC 8216bis 6.2.5.2: an `_HLS_msn` more than this past the last segment is a Bad Request. */
const MSN_AHEAD_LIMIT = 2;

interface Entry {
  readonly promise: Promise<PlaylistOutcome>;
  /** Undefined while in flight. */
  expires: number | undefined;
  size: number;
  /** The lifetime the settled answer was given (ms). */
  ttl?: number;
  /** The playlist this entry settled to, while it is cached. */
  settled?: PlaylistOutcome & { kind: "playlist" };
  /**
   * While this entry's fetch is in flight: the playlist it refreshes, served instead of
   * waiting (until `until`), so viewers never queue behind the periodic refresh.
   */
  previous?: {
    readonly promise: Promise<PlaylistOutcome>;
    readonly until: number;
    readonly settled: (PlaylistOutcome & { kind: "playlist" }) | undefined;
  };
}

export function createPlaylistSource(deps: {
  egress: Egress;
  maxPlaylistBytes: number;
  /** The rewrite policy of a fetch of `url` for `channel` (`createPolicyChooser`). */
  policy: (channel: Channel, url: string) => RewritePolicy;
  sign: (channelId: string, target: string) => string;
  stats: PlaybackStats;
  /** Where the channel's sensitive headers may go ({@link channelCredentialOrigin}). */
  credentialOrigin: (channel: Channel) => string;
}): PlaylistSource {
  const entries = new Map<string, Entry>();
  /**
   * Channel and playlist URL (without directives) → last media sequence number seen,
   * or "ended" once the playlist carried EXT-X-ENDLIST.
   */
  const edges = new Map<string, number | "ended">();
  let cachedBytes = 0;
  let fetches = 0;

  const evict = (key: string) => {
    const e = entries.get(key);
    if (e === undefined) return;
    entries.delete(key);
    cachedBytes -= e.size;
  };
  const makeRoom = (now: number) => {
    const full = () => entries.size >= MAX_ENTRIES || cachedBytes > MAX_CACHED_BYTES;
    if (!full()) return;
    for (const [key, e] of entries) if (e.expires !== undefined && e.expires <= now) evict(key);
    // Still full: drop the oldest settled entries; fetches in flight stay shared.
    for (const [key, e] of entries) {
      if (!full()) break;
      if (e.expires !== undefined) evict(key);
    }
  };

  /**
   * One upstream fetch. `prior` is the playlist the entry held before: when the upstream
   * answers the same text from the same URL it is returned as it is, compiled object and
   * all, so the bytes already rendered for each viewer (`rendered-playlists.ts`) stay in
   * use. A live playlist is refreshed every half target duration and changes once per
   * target duration, and a playlist that does not change at all (a master playlist, an
   * ended event) never would: without this every refresh re-signed every URI and rendered
   * a new copy per viewer, garbage the collector reclaims late (docs/performance.md).
   * Signing is deterministic and keyed by channel revision and policy like the entry, so
   * the kept references are the ones a new compile would make.
   */
  const fetchOnce = async (
    channel: Channel,
    url: string,
    policy: RewritePolicy,
    prior: (PlaylistOutcome & { kind: "playlist" }) | undefined,
  ): Promise<PlaylistOutcome> => {
    fetches += 1;
    const r = await deps.egress.request(url, {
      headers: channelRequestHeaders(channel),
      channelId: channel.id,
      credentialOrigin: deps.credentialOrigin(channel),
    });
    if (!r.ok)
      return r.kind === "refused"
        ? { kind: "refused", message: r.message }
        : { kind: "failed", message: r.message };
    if (PASSTHROUGH_STATUSES.has(r.status)) {
      r.body.dump().catch(() => undefined);
      const range = r.headers["content-range"];
      return {
        kind: "status",
        status: r.status as 404 | 410 | 416,
        ...(r.status === 416 && typeof range === "string" ? { contentRange: range } : {}),
      };
    }
    if (r.status !== 200) {
      r.body.dump().catch(() => undefined);
      return { kind: "failed", message: `upstream answered ${r.status}` };
    }
    const body = await readBodyCapped(r.body, deps.maxPlaylistBytes);
    if (!body.ok) {
      return {
        kind: "failed",
        message:
          body.kind === "too_large" ? "upstream playlist exceeds max_playlist_bytes" : body.message,
      };
    }
    deps.stats.bytesIn += body.bytes.length;
    if (!looksLikePlaylist(body.bytes)) {
      const type = r.headers["content-type"];
      return {
        kind: "bytes",
        bytes: body.bytes,
        headers: {
          "content-security-policy": UPSTREAM_CSP,
          ...(typeof type === "string" ? { "content-type": type } : {}),
        },
      };
    }
    const text = body.bytes.toString("utf8");
    if (prior !== undefined && prior.source.text === text && prior.source.url === r.url)
      return prior;
    const compiled = compilePlaylist(text, {
      baseUrl: r.url,
      policy,
      sign: (target) => deps.sign(channel.id, target),
    });
    // The text kept for that comparison and the compiled pieces, about as long again.
    return { kind: "playlist", compiled, size: text.length * 4, source: { text, url: r.url } };
  };

  /**
   * What an entry answers at `now`: its own answer while fresh; while its fetch is in
   * flight, the playlist it refreshes (within that one's grace) or else the fetch itself;
   * undefined once expired (the caller starts the next fetch).
   */
  const servable = (
    hit: Entry,
    now: number,
  ): Pick<Entry, "promise" | "settled"> | Entry["previous"] => {
    if (hit.expires !== undefined) return hit.expires > now ? hit : undefined;
    return hit.previous !== undefined && hit.previous.until > now ? hit.previous : hit;
  };
  const keyOf = (channel: Channel, url: string, policy: RewritePolicy) =>
    `${channel.id}\0${channel.revision}\0${policy}\0${url}`;
  const edgeKeyOf = (channel: Channel, url: string) => `${channel.id}\0${channel.revision}\0${url}`;

  const remember = (edgeKey: string, outcome: PlaylistOutcome) => {
    if (outcome.kind !== "playlist" || outcome.compiled.lastMsn === undefined) return;
    if (!edges.has(edgeKey) && edges.size >= MAX_ENTRIES) edges.delete(edges.keys().next().value!);
    const seen = edges.get(edgeKey);
    edges.set(
      edgeKey,
      outcome.compiled.endList
        ? "ended"
        : Math.max(typeof seen === "number" ? seen : 0, outcome.compiled.lastMsn),
    );
  };

  const source: PlaylistSource = {
    async getLive(channel, url, directives) {
      const edgeKey = edgeKeyOf(channel, url);
      const msnText = /(?:^|&)_HLS_msn=(\d+)/.exec(directives)?.[1];
      if (msnText === undefined) {
        const plain = await source.get(channel, url, false);
        remember(edgeKey, plain);
        return directives === ""
          ? plain
          : source.get(channel, withDirectives(url, directives), true);
      }
      let edge = edges.get(edgeKey);
      if (edge === undefined) {
        const plain = await source.get(channel, url, false);
        remember(edgeKey, plain);
        edge = edges.get(edgeKey);
        if (edge === undefined) return plain; // no media segments: nothing to block on
      }
      // 6.2.5.2: a playlist with EXT-X-ENDLIST will not change; directives are ignored.
      if (edge === "ended") {
        const plain = await source.get(channel, url, false);
        remember(edgeKey, plain);
        return plain;
      }
      const msn = Number(msnText);
      if (msn > edge + MSN_AHEAD_LIMIT)
        return {
          kind: "invalid",
          message: `_HLS_msn ${msn} is more than ${MSN_AHEAD_LIMIT} past the last segment (${edge})`,
        };
      const hasPart = /(?:^|&)_HLS_part=/.test(directives);
      // Already in the playlist (whole, when no part is asked for): the shared answer holds it.
      if (msn < edge || (msn === edge && !hasPart)) {
        const plain = await source.get(channel, url, false);
        remember(edgeKey, plain);
        return plain;
      }
      const blocking = await source.get(channel, withDirectives(url, directives), true);
      remember(edgeKey, blocking);
      return blocking;
    },
    get(channel, url, blocking) {
      const now = Date.now();
      // The policy is part of the key: a playlist compiled under the previous policy is not
      // served after the egress document changed it.
      const policy = deps.policy(channel, url);
      const key = keyOf(channel, url, policy);
      const hit = entries.get(key);
      if (hit !== undefined) {
        const served = servable(hit, now);
        if (served !== undefined) return served.promise;
        evict(key);
      }
      makeRoom(now);
      const entry: Entry = {
        promise: fetchOnce(channel, url, policy, hit?.settled),
        expires: undefined,
        size: 0,
        // Refresh-ahead: only cached playlists have an expiry, and one is served for at most
        // one more of its lifetimes while the refresh is under way (a slow or failing upstream
        // then makes viewers wait as before, never see an old playlist for long).
        ...(hit?.expires !== undefined && hit.ttl !== undefined
          ? {
              previous: {
                promise: hit.promise,
                until: hit.expires + hit.ttl,
                settled: hit.settled,
              },
            }
          : {}),
      };
      entries.set(key, entry);
      entry.promise.then(
        (outcome) => {
          if (entries.get(key) !== entry) return;
          delete entry.previous;
          const ttl = blocking ? 0 : ttlOf(outcome);
          if (ttl <= 0) return evict(key);
          entry.ttl = ttl;
          entry.expires = Date.now() + ttl;
          if (outcome.kind === "playlist") {
            entry.settled = outcome;
            // The live edge moves when the cache does, whoever reads it next (a refresh
            // answered ahead, or the fast lane's `peek`, never passes through `getLive`).
            remember(edgeKeyOf(channel, url), outcome);
          }
          entry.size = outcome.kind === "playlist" ? outcome.size : 0;
          cachedBytes += entry.size;
        },
        () => {
          if (entries.get(key) === entry) evict(key);
        },
      );
      return entry.previous?.promise ?? entry.promise;
    },
    peek(channel, url) {
      const hit = entries.get(keyOf(channel, url, deps.policy(channel, url)));
      return hit === undefined ? undefined : servable(hit, Date.now())?.settled;
    },
    get fetches() {
      return fetches;
    },
  };
  return source;
}

function ttlOf(outcome: PlaylistOutcome): number {
  if (outcome.kind !== "playlist") return 0;
  const td = outcome.compiled.targetDurationSec;
  // RFC 8216bis 6.3.4: a client reloads a live playlist no sooner than half a target duration
  // after an unchanged answer, so a cache younger than that never makes it fall behind.
  return td === undefined ? MASTER_TTL_MS : Math.min(td * 500, MAX_TTL_MS);
}
