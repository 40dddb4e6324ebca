import { createHash } from "node:crypto";
import type { Egress } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import type { Logger } from "@svc/core/log";
import { runInSlices } from "@svc/core/time-slices";
import type {
  M3uSourceRepository,
  M3uSourceRow,
  M3uSyncResult,
} from "../../storage/m3u-sources/repository.js";
import type { ChannelStore } from "../channels/channel-store.js";
import { downloadList } from "./list-download.js";
import { type SyncPlan, syncSteps } from "./sync-plan.js";

export interface M3uSyncerDeps {
  readonly repository: M3uSourceRepository;
  readonly channels: ChannelStore;
  readonly egress: Egress;
  readonly userAgent: string;
  /** Download ceiling: the M3U import's body ceiling. */
  readonly maxBytes: number;
  /** Where a source's list is fetched from. */
  readonly listUrl: (row: M3uSourceRow) => string;
  readonly log: Logger;
}

/** How often the schedule looks for due sources; each wait is jittered by ±10 %. */
const TICK_MS = 60_000;
/** A source is due a little early rather than a whole tick late. */
const TOLERANCE_MS = 30_000;

/**
 * Per-source spread of the schedule, up to a tenth of the interval, stable per id: sources
 * with one interval (and providers with several lists) are not all fetched in the same tick.
 */
function jitterMs(id: string, intervalMs: number): number {
  const n = createHash("sha1").update(id).digest().readUInt32BE(0);
  return n % Math.max(1, Math.floor(intervalMs / 10));
}

/**
 * The syncs of the M3U provider sources: one at a time in this process (each is a download,
 * a parse and one channel transaction), on request and on a schedule. With several instances
 * on one database a scheduled sync first claims the source in the database (its last attempt
 * compared and set), as the guide's refresh does, so one instance syncs it per interval.
 */
export function createM3uSyncer(deps: M3uSyncerDeps) {
  const { repository: repo, log } = deps;
  const shutdown = new AbortController();
  let queue: Promise<unknown> = Promise.resolve();
  const running = new Map<string, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;

  /** Runs `work` after every sync queued before it. */
  function serial<T>(work: () => Promise<T>): Promise<T> {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  }

  async function plan(row: M3uSourceRow, pieces: readonly string[]): Promise<SyncPlan | string> {
    try {
      return await runInSlices(
        syncSteps(
          pieces,
          { id: row.id, groupFilter: row.groupFilter, removeMissing: row.removeMissing },
          deps.channels,
        ),
      );
    } catch (err) {
      if (err instanceof GatewayError)
        // The import's message names its body field (`content: …`); here there is none.
        return `not an M3U playlist: ${err.message.replace(/^content: /, "")}`;
      throw err;
    }
  }

  /** One attempt; a failure of any step leaves the channels exactly as they were. */
  async function attempt(row: M3uSourceRow, at: number): Promise<M3uSyncResult> {
    const status = await repo.status(row.id);
    const dl = await downloadList(
      deps.egress,
      {
        url: deps.listUrl(row),
        validators: { etag: status?.etag ?? null, lastModified: status?.lastModified ?? null },
        userAgent: deps.userAgent,
        signal: shutdown.signal,
      },
      deps.maxBytes,
    );
    if (!dl.ok) return dl;
    if (dl.notModified) return { ok: true, created: 0, updated: 0, disabled: 0, skipped: 0 };
    const p = await plan(row, dl.pieces);
    if (typeof p === "string") return { ok: false, error: p };
    // A provider answering an empty list during an outage must not disable every channel.
    if (p.listed === 0 && (p.disabled > 0 || p.remove.length > 0))
      return { ok: false, error: "the playlist has no usable entry: nothing changed" };
    // Removed (or changed) while it was downloading: nothing is written for it.
    const now = await repo.get(row.id);
    if (now === undefined || now.revision !== row.revision)
      return { ok: false, error: "the source changed during the sync: nothing changed" };
    if (p.put.length > 0 || p.remove.length > 0) {
      try {
        await deps.channels.commit({ put: p.put, remove: p.remove });
      } catch (err) {
        if (!(err instanceof GatewayError)) throw err;
        return {
          ok: false,
          error: `channels changed during the sync (${err.message}): retried next time`,
        };
      }
    }
    log.debug({ source: row.id, at }, "m3u source applied");
    return {
      ok: true,
      created: p.created,
      updated: p.updated,
      disabled: p.disabled,
      skipped: p.skipped,
      validators: dl.validators,
    };
  }

  async function sync(row: M3uSourceRow, at: number): Promise<void> {
    const result = await attempt(row, at).catch((err: unknown): M3uSyncResult => {
      log.error({ err, source: row.id }, "m3u source sync failed unexpectedly");
      return { ok: false, error: "internal error" };
    });
    if (shutdown.signal.aborted && !result.ok) return;
    // Deleted meanwhile: no status is left behind for a later source of the same id.
    if ((await repo.get(row.id)) === undefined) return;
    await repo.finish(row.id, at, result);
    log.info(
      {
        source: row.id,
        ok: result.ok,
        ...(result.ok
          ? {
              created: result.created,
              updated: result.updated,
              disabled: result.disabled,
              skipped: result.skipped,
            }
          : { error: result.error }),
        dur_ms: Date.now() - at,
      },
      "m3u source synced",
    );
  }

  /** Concurrent requests for one source share its run. */
  function syncNow(row: M3uSourceRow): Promise<void> {
    const current = running.get(row.id);
    if (current !== undefined) return current;
    const run = serial(async () => {
      const at = Date.now();
      await repo.claim(row.id, at, null);
      // Read again: a write queued behind another sync must not apply an older row.
      const fresh = (await repo.get(row.id)) ?? row;
      await sync(fresh, at);
    }).finally(() => running.delete(row.id));
    running.set(row.id, run);
    return run;
  }

  async function scheduledTurn(): Promise<void> {
    const turn = Date.now();
    for (const row of await repo.list()) {
      if (shutdown.signal.aborted) return;
      if (!row.enabled || running.has(row.id)) continue;
      const intervalMs = row.refreshIntervalMin * 60_000;
      const dueBefore = turn - intervalMs - jitterMs(row.id, intervalMs) + TOLERANCE_MS;
      const status = await repo.status(row.id);
      if ((status?.lastAttempt ?? null) !== null && status!.lastAttempt! > dueBefore) continue;
      const run = serial(async () => {
        const at = Date.now();
        if (!(await repo.claim(row.id, at, dueBefore))) return;
        const fresh = await repo.get(row.id);
        if (fresh?.enabled) await sync(fresh, at);
      }).finally(() => running.delete(row.id));
      running.set(row.id, run);
    }
  }

  function schedule(delayMs: number): void {
    if (shutdown.signal.aborted) return;
    timer = setTimeout(() => {
      scheduledTurn()
        .catch((err: unknown) => log.error({ err }, "m3u source schedule failed"))
        .finally(() => schedule(TICK_MS * (0.9 + Math.random() * 0.2)));
    }, delayMs);
    timer.unref();
  }

  return {
    syncNow,
    /** A deleted source's channels stay, no longer owned (after any sync in progress). */
    release: (id: string) =>
      serial(async () => {
        const owned = deps.channels.list().filter((c) => c.m3u_source === id);
        if (owned.length === 0) return;
        const now = Date.now();
        await deps.channels.commit({
          put: owned.map((c) => ({
            ...c,
            m3u_source: "",
            m3u_synced: null,
            revision: c.revision + 1,
            updated_at: now,
          })),
        });
      }),
    /** The first look at once (a few seconds in), then about one per minute. */
    start(): void {
      schedule(Math.random() * 10_000);
    },
    async close(): Promise<void> {
      if (timer !== undefined) clearTimeout(timer);
      shutdown.abort();
      await queue;
    },
  };
}
