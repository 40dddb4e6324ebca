import type { ServerResponse } from "node:http";
import type { Channel } from "@svc/core/catalog";
import type { Egress, EgressResponse } from "@svc/core/egress";
import type { PlaybackStats } from "../delivery/playback-stats.js";
import { readFirstChunk, writeCorked } from "./direct-response.js";
import { looksLikePlaylist } from "./playlist-rewriter.js";
import {
  channelRequestHeaders,
  isAmbiguousType,
  isPlaylistType,
  keptResponseHeaders,
  PASSTHROUGH_STATUSES,
} from "./upstream-headers.js";

/**
 * How a shared upstream media fetch turned out, for every viewer that joined it.
 * `stream`: the body is being read once and replayed to each viewer from memory.
 * `solo`: not shareable (unknown length, or over the memory budget); the first
 * taker streams the upstream answer itself, the others fetch on their own.
 * `playlist`: the answer is a playlist after all; the caller reads and rewrites it.
 */
export type SharedOutcome =
  | { readonly kind: "stream"; readonly headers: Record<string, string> }
  | { readonly kind: "solo" }
  | {
      readonly kind: "playlist";
      readonly response: EgressResponse;
      readonly first: Buffer | undefined;
    }
  | { readonly kind: "status"; readonly status: 404 | 410 | 416; readonly contentRange?: string }
  | { readonly kind: "refused"; readonly message: string }
  | { readonly kind: "failed"; readonly message: string };

export interface SharedSubscription {
  readonly outcome: Promise<SharedOutcome>;
  /** `solo`/`playlist`: the upstream answer, to the first caller only. */
  take(): { response: EgressResponse; first: Buffer | undefined } | undefined;
  /** `stream`: replays the shared body into `out` (headers already written), then ends it. */
  pipeTo(out: ServerResponse): void;
  /** The viewer went away; the last one to leave aborts the upstream request. */
  leave(): void;
}

export interface SegmentFanIn {
  /** Joins the fetch in flight for (channel, target) or starts one. No `Range` requests here. */
  join(channel: Channel, target: string): SharedSubscription;
  /** Bytes of media currently held in memory across shared fetches. */
  readonly heldBytes: number;
}

interface Shared {
  readonly chunks: Buffer[];
  done: boolean;
  failed: boolean;
  members: number;
  reserved: number;
  readonly pumps: Set<() => void>;
  /** A pass over `pumps` is queued for the end of this event-loop turn. */
  pumpQueued: boolean;
  readonly ac: AbortController;
  handoff: { response: EgressResponse; first: Buffer | undefined } | undefined;
  outcome: Promise<SharedOutcome>;
}

/**
 * Fan-in for media (issue 3 item 6): identical concurrent segment requests share
 * one upstream fetch. What is held is bounded: a fetch is shared only when its
 * `Content-Length` is known and fits both `maxEntryBytes` and what is left of
 * `budgetBytes`; the memory is released when the last viewer has been served.
 */
export function createSegmentFanIn(deps: {
  egress: Egress;
  stats: PlaybackStats;
  budgetBytes: number;
  maxEntryBytes: number;
  /** Where the channel's sensitive headers may go (`channelCredentialOrigin`). */
  credentialOrigin: (channel: Channel) => string;
}): SegmentFanIn {
  const inflight = new Map<string, Shared>();
  let held = 0;

  const release = (s: Shared) => {
    if (s.reserved > 0 && s.members === 0 && (s.done || s.failed)) {
      held -= s.reserved;
      s.reserved = 0;
    }
  };

  /**
   * Viewers are written to once per event-loop turn, not once per upstream chunk: one
   * socket read hands over up to 32 chunks of 64 KiB in a row, and each viewer gets all
   * it has not had yet in one `writeCorked`. The pass runs before any timer or new I/O,
   * so no byte waits longer than it did.
   */
  const queuePumps = (s: Shared) => {
    if (s.pumpQueued) return;
    s.pumpQueued = true;
    setImmediate(() => {
      s.pumpQueued = false;
      for (const pump of s.pumps) pump();
    });
  };

  const drive = async (
    s: Shared,
    key: string,
    channel: Channel,
    target: string,
  ): Promise<SharedOutcome> => {
    const r = await deps.egress.request(target, {
      headers: channelRequestHeaders(channel),
      signal: s.ac.signal,
      channelId: channel.id,
      credentialOrigin: deps.credentialOrigin(channel),
    });
    const settle = (o: SharedOutcome): SharedOutcome => {
      if (o.kind !== "stream") {
        s.done = true;
        if (inflight.get(key) === s) inflight.delete(key);
      }
      return o;
    };
    if (!r.ok)
      return settle(
        r.kind === "refused"
          ? { kind: "refused", message: r.message }
          : { kind: "failed", message: r.message },
      );
    if (PASSTHROUGH_STATUSES.has(r.status)) {
      r.body.dump().catch(() => undefined);
      const range = r.headers["content-range"];
      return settle({
        kind: "status",
        status: r.status as 404 | 410 | 416,
        ...(r.status === 416 && typeof range === "string" ? { contentRange: range } : {}),
      });
    }
    if (r.status !== 200) {
      r.body.dump().catch(() => undefined);
      return settle({ kind: "failed", message: `upstream answered ${r.status}` });
    }
    const type = r.headers["content-type"];
    let first: Buffer | undefined;
    if (isPlaylistType(type)) {
      s.handoff = { response: r, first: undefined };
      return settle({ kind: "playlist", response: r, first: undefined });
    }
    if (isAmbiguousType(type)) {
      try {
        first = (await readFirstChunk(r.body)) ?? undefined;
      } catch {
        return settle({ kind: "failed", message: "upstream body failed" });
      }
      if (first !== undefined && looksLikePlaylist(first)) {
        s.handoff = { response: r, first };
        return settle({ kind: "playlist", response: r, first });
      }
    }
    const length = Number(r.headers["content-length"]);
    if (
      !Number.isSafeInteger(length) ||
      length > deps.maxEntryBytes ||
      held + length > deps.budgetBytes
    ) {
      s.handoff = { response: r, first };
      return settle({ kind: "solo" });
    }
    held += length;
    s.reserved = length;
    const push = (chunk: Buffer) => {
      deps.stats.bytesIn += chunk.length;
      s.chunks.push(chunk);
      queuePumps(s);
    };
    if (first !== undefined) push(first);
    let settled = false;
    const finish = (failed: boolean) => {
      if (settled) return;
      settled = true;
      if (failed) s.failed = true;
      else s.done = true;
      if (inflight.get(key) === s) inflight.delete(key);
      queuePumps(s);
      release(s);
    };
    r.body.on("data", push);
    r.body.once("end", () => finish(false));
    r.body.once("error", () => finish(true));
    // The first chunk may have been the last: its "end" can be gone already.
    if (r.body.readableEnded) finish(false);
    return { kind: "stream", headers: keptResponseHeaders(r.headers) };
  };

  return {
    join(channel, target) {
      const key = `${channel.id}\0${channel.revision}\0${target}`;
      let s = inflight.get(key);
      if (s === undefined) {
        const created: Shared = {
          chunks: [],
          done: false,
          failed: false,
          members: 0,
          reserved: 0,
          pumps: new Set(),
          pumpQueued: false,
          ac: new AbortController(),
          handoff: undefined,
          outcome: Promise.resolve({ kind: "solo" }),
        };
        inflight.set(key, created);
        created.outcome = drive(created, key, channel, target).catch(() => {
          created.failed = true;
          if (inflight.get(key) === created) inflight.delete(key);
          return { kind: "failed", message: "upstream fetch failed" } as const;
        });
        s = created;
      }
      const shared = s;
      shared.members += 1;
      let left = false;
      let pump: (() => void) | undefined;
      const leave = () => {
        if (left) return;
        left = true;
        if (pump !== undefined) shared.pumps.delete(pump);
        shared.members -= 1;
        if (shared.members === 0) {
          // An answer nobody took is closed; with nobody watching, upstream reading stops now.
          shared.handoff?.response.body.destroy();
          shared.handoff = undefined;
          if (!shared.done && !shared.failed) {
            shared.ac.abort();
            shared.failed = true;
            if (inflight.get(key) === shared) inflight.delete(key);
          }
        }
        release(shared);
      };
      return {
        outcome: shared.outcome,
        take() {
          const h = shared.handoff;
          shared.handoff = undefined;
          return h;
        },
        pipeTo(out) {
          let next = 0;
          let waiting = false;
          pump = () => {
            if (waiting || left) return;
            if (next < shared.chunks.length) {
              // The shared body's own buffers: queueing them past the high-water mark adds no memory.
              for (let i = next; i < shared.chunks.length; i++)
                deps.stats.bytesOut += shared.chunks[i]!.length;
              const room = writeCorked(out, shared.chunks, next);
              next = shared.chunks.length;
              if (!room) {
                waiting = true;
                out.once("drain", () => {
                  waiting = false;
                  pump?.();
                });
                return;
              }
            }
            if (shared.failed) {
              deps.stats.errors += 1;
              out.destroy();
            } else if (shared.done) out.end();
            else return;
            leave();
          };
          shared.pumps.add(pump);
          pump();
        },
        leave,
      };
    },
    get heldBytes() {
      return held;
    },
  };
}
