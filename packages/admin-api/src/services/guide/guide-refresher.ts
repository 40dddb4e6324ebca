import type { Egress } from "@svc/core/egress";
import type { Logger } from "@svc/core/log";
import type { GuideData, SourceStatusRow } from "./guide-data.js";
import type { DownloadLimits } from "./guide-download.js";
import { importSource } from "./source-import.js";
import type { GuideSource, GuideSourceStore } from "./source-store.js";

export interface RefreshOutcome {
  readonly ok: boolean;
  readonly statuses: readonly SourceStatusRow[];
}

export interface GuideRefresherDeps {
  readonly sources: GuideSourceStore;
  readonly data: GuideData;
  readonly egress: Egress;
  readonly limits: DownloadLimits;
  readonly userAgent: string;
  /** `guide.refresh_interval_min` in ms. */
  readonly intervalMs: number;
  /** `guide.min_refresh_sec` in ms: the least time between two on-demand refreshes of a source. */
  readonly minOnDemandMs: number;
  readonly log: Logger;
}

/** `manual`: every enabled source; the others only the sources due (see `run`). */
type RunKind = "scheduled" | "manual" | "on-demand";

/** Node timers hold at most 2^31-1 ms (~24.8 days); a longer interval would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The guide's refreshes: on request (coalesced) and on a schedule that, with
 * several instances on one database, refreshes each source on one of them per
 * interval (docs/guide.md "Several instances"): a scheduled turn claims the
 * due sources in the database before reading them.
 */
export function createGuideRefresher(deps: GuideRefresherDeps) {
  const { sources, data, log } = deps;
  const intervalMs = Math.min(deps.intervalMs, MAX_TIMER_MS);
  /**
   * How much earlier than a whole interval a scheduled turn may claim a
   * source again: timers drift by milliseconds, and a source must not skip a
   * turn because its last claim was a few ms late.
   */
  const claimToleranceMs = Math.min(intervalMs / 10, 60_000);
  let inflight: { kind: RunKind; run: Promise<RefreshOutcome> } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const shutdown = new AbortController();

  const enabled = () => sources.list().filter((s) => s.enabled);

  async function refreshSource(source: GuideSource, attempt: number): Promise<SourceStatusRow> {
    const status = await importSource(
      {
        egress: deps.egress,
        data,
        limits: deps.limits,
        userAgent: deps.userAgent,
        signal: shutdown.signal,
      },
      source,
      attempt,
    ).catch((err: unknown) => {
      log.error({ err, source: source.id }, "guide refresh failed unexpectedly");
      return data.recordFailure(source.id, attempt, "internal error");
    });
    log.info(
      {
        source: source.id,
        ok: status.error === null,
        error: status.error,
        channels: status.channelCount,
        programmes: status.programmeCount,
        dur_ms: Date.now() - attempt,
      },
      "guide source refreshed",
    );
    return status;
  }

  /**
   * Refreshes sources one after the other: each parse is CPU-bound and the
   * machine's memory stays bounded by one document's pieces. `scheduled` and
   * `on-demand`: only the sources this instance claims because their last
   * attempt (by any instance sharing the database) is old enough (an interval;
   * `guide.min_refresh_sec`), all claimed at the turn's instant; `manual`: every
   * enabled source, each claimed unconditionally when it starts.
   */
  async function run(kind: RunKind): Promise<RefreshOutcome> {
    const statuses: SourceStatusRow[] = [];
    const turn = Date.now();
    const claimed: GuideSource[] = [];
    const minAgeMs = kind === "scheduled" ? intervalMs - claimToleranceMs : deps.minOnDemandMs;
    for (const source of enabled()) {
      if (kind === "manual") claimed.push(source);
      else if (await data.claim(source.id, turn, turn - minAgeMs)) claimed.push(source);
    }
    for (const source of claimed) {
      if (shutdown.signal.aborted) break;
      let attempt = turn;
      if (kind === "manual") {
        attempt = Date.now();
        await data.claim(source.id, attempt, null);
      }
      const status = await refreshSource(source, attempt);
      // Removed while it was being read (on any instance: the stored rows are
      // read again, not this instance's copy): its rows must not outlive it.
      await sources.reload();
      if (sources.get(source.id) === undefined) {
        await data.forget(source.id);
        void data.purgeOld(source.id, Date.now());
        continue;
      }
      statuses.push(status);
    }
    return { ok: statuses.every((s) => s.error === null), statuses };
  }

  /** The schedule's turn; skipped while a refresh runs. */
  function scheduledTurn(): void {
    if (inflight !== undefined) return;
    const turn = run("scheduled")
      .catch((err: unknown): RefreshOutcome => {
        log.error({ err }, "scheduled guide refresh failed");
        return { ok: false, statuses: [] };
      })
      .finally(() => {
        if (inflight?.run === turn) inflight = undefined;
      });
    inflight = { kind: "scheduled", run: turn };
  }

  /**
   * A refresh on request; concurrent callers of one kind share the run in
   * progress. A request during another run (which may cover only some sources)
   * waits for it, then runs its own.
   */
  function requested(kind: "manual" | "on-demand"): Promise<RefreshOutcome> {
    if (inflight?.kind === kind) return inflight.run;
    const before = inflight?.run;
    const mine = (async () => {
      await before;
      return run(kind);
    })().finally(() => {
      if (inflight?.run === mine) inflight = undefined;
    });
    inflight = { kind, run: mine };
    return mine;
  }

  return {
    /** Refreshes every enabled source (`POST /v1/admin/epg/refresh`). */
    refresh: () => requested("manual"),
    /**
     * `guide.cache: false`: what an epg.xml request asks for. Only sources not
     * attempted (here or by another instance) for `guide.min_refresh_sec` are
     * refreshed: the public endpoint costs each origin at most one download per
     * that time, however many requests arrive. Concurrent callers share the run.
     */
    refreshOnDemand: () => requested("on-demand"),
    /** Deletes leftovers, then runs a first turn at once and one per interval. */
    async start(): Promise<void> {
      const leftovers = await data.sourcesWithProgrammes();
      if (shutdown.signal.aborted) return;
      for (const id of leftovers) {
        // Crashes, superseded refreshes, removed sources. A source's rows at or
        // above its current generation may be a refresh another instance is
        // writing now: only the source's next switch deletes them.
        const current = data.status(id).generation;
        if (sources.get(id) === undefined) void data.purgeOld(id, Date.now());
        else if (current !== null) void data.purgeOld(id, current);
      }
      scheduledTurn();
      timer = setInterval(scheduledTurn, intervalMs);
      timer.unref();
    },
    /** Stops the schedule, aborts a refresh in progress and waits for it. */
    async close(): Promise<void> {
      if (timer !== undefined) clearInterval(timer);
      shutdown.abort();
      await inflight?.run.catch(() => undefined);
      data.close();
    },
  };
}
