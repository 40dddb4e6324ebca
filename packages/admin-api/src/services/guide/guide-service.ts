import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Channel, ChannelCatalog } from "@svc/core/catalog";
import type { GatewayConfig } from "@svc/core/config";
import type { Egress } from "@svc/core/egress";
import type { Logger } from "@svc/core/log";
import type { ChangeFeed } from "../../storage/change-feed.js";
import type { GuideRepository } from "../../storage/guide/repository.js";
import { type ChannelMatch, type ChannelMatcher, createChannelMatcher } from "./channel-matcher.js";
import { type GuideRef, renderEpg } from "./epg-writer.js";
import { openGuideData, type ProgrammeRow, type SourceStatusRow } from "./guide-data.js";
import { createLogoCache } from "./logo-cache.js";
import { logoCandidates } from "./logo-candidates.js";
import { importSource } from "./source-import.js";
import { type GuideSource, openGuideSourceStore } from "./source-store.js";

export interface GuideServiceDeps {
  readonly config: GatewayConfig;
  readonly repository: GuideRepository;
  /** Reloads the mirrors when another instance changed the guide. */
  readonly feed: ChangeFeed;
  readonly egress: Egress;
  readonly catalog: ChannelCatalog;
  readonly userAgent: string;
  readonly log: Logger;
}

export interface RefreshOutcome {
  readonly ok: boolean;
  readonly statuses: readonly SourceStatusRow[];
}

/**
 * Node timers hold at most 2^31-1 ms (~24.8 days); a longer interval would fire at once.
 */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The programme guide of the full build: sources, refresh (scheduled, on
 * request, or on demand per epg.xml request with `guide.cache: false`), matching,
 * the XMLTV output and the logos. Business rules live here and in the modules it
 * composes; the routes only translate HTTP. Sources and refresh states are
 * mirrored in memory; guide channels and programmes are read from the
 * repository when matching is rebuilt or epg.xml is written.
 */
export async function createGuideService(deps: GuideServiceDeps) {
  const { config, log } = deps;
  const sources = await openGuideSourceStore(deps.repository);
  const data = await openGuideData(deps.repository);
  deps.feed.watch("guide", async () => {
    await Promise.all([sources.reload(), data.reload()]);
  });
  const logos = createLogoCache({
    dir: join(config.server.data_dir, "logos"),
    egress: deps.egress,
    userAgent: deps.userAgent,
  });
  const limits = {
    maxDownloadBytes: config.guide.max_download_bytes,
    maxXmlBytes: config.guide.max_xml_bytes,
  };
  const intervalMs = Math.min(config.guide.refresh_interval_min * 60_000, MAX_TIMER_MS);
  /**
   * How much earlier than a whole interval a scheduled refresh may claim a
   * source again: timers of the instances drift by milliseconds, and a source
   * must not skip an interval because its last claim was a few ms late.
   */
  const claimToleranceMs = Math.min(intervalMs / 10, 60_000);
  let inflight: { manual: boolean; run: Promise<RefreshOutcome> } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const shutdown = new AbortController();

  const enabled = () => sources.list().filter((s) => s.enabled);

  async function refreshSource(source: GuideSource, attempt: number): Promise<SourceStatusRow> {
    const status = await importSource(
      { egress: deps.egress, data, limits, userAgent: deps.userAgent, signal: shutdown.signal },
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
   * machine's memory stays bounded by one document's pieces. `scheduled`: only
   * the sources this instance claims because their last attempt (by any
   * instance sharing the database) is an interval old — all claimed at once,
   * at the tick's instant, so the next tick finds them due again; otherwise
   * every enabled source, each claimed unconditionally when it starts.
   */
  async function runRefresh(scheduled: boolean): Promise<RefreshOutcome> {
    const statuses: SourceStatusRow[] = [];
    const tick = Date.now();
    const claimed: GuideSource[] = [];
    for (const source of enabled()) {
      if (!scheduled) claimed.push(source);
      else if (await data.claim(source.id, tick, tick - intervalMs + claimToleranceMs))
        claimed.push(source);
    }
    for (const source of claimed) {
      if (shutdown.signal.aborted) break;
      let attempt = tick;
      if (!scheduled) {
        attempt = Date.now();
        await data.claim(source.id, attempt, null);
      }
      const status = await refreshSource(source, attempt);
      // Removed while it was being read: its rows must not outlive it.
      if (sources.get(source.id) === undefined) {
        await data.forget(source.id);
        void data.purgeOld(source.id, Date.now());
        continue;
      }
      statuses.push(status);
    }
    return { ok: statuses.every((s) => s.error === null), statuses };
  }

  /**
   * Refreshes every enabled source; concurrent callers share the run in
   * progress. A request during a scheduled run (which may cover only some
   * sources) waits for it, then runs its own.
   */
  function refresh(): Promise<RefreshOutcome> {
    if (inflight?.manual) return inflight.run;
    const before = inflight?.run.catch(() => undefined);
    const run = (async () => {
      await before;
      return runRefresh(false);
    })().finally(() => {
      if (inflight?.run === run) inflight = undefined;
    });
    inflight = { manual: true, run };
    return run;
  }

  /** The schedule's turn: the due sources this instance claims; skipped while a refresh runs. */
  function scheduledRefresh(): void {
    if (inflight !== undefined) return;
    const run = runRefresh(true)
      .catch((err: unknown) => {
        log.error({ err }, "scheduled guide refresh failed");
        return { ok: false, statuses: [] };
      })
      .finally(() => {
        if (inflight?.run === run) inflight = undefined;
      });
    inflight = { manual: false, run };
  }

  // Matching is rebuilt only when the switched generations of the enabled
  // sources or the catalog changed; epg.xml, the matches listing and logos
  // share the result, and concurrent callers share one rebuild.
  let matchCache:
    | { key: string; matcher: ChannelMatcher; byChannel: Map<string, ChannelMatch> }
    | undefined;
  let building: { key: string; result: Promise<Map<string, ChannelMatch>> } | undefined;
  function catalogKey(list: readonly Channel[]): string {
    const h = createHash("sha1");
    for (const ch of list) h.update(`${ch.id}\u0000${ch.revision}\u0000`);
    return h.digest("hex");
  }
  function matches(): Promise<Map<string, ChannelMatch>> {
    const active = enabled().filter((s) => data.status(s.id).generation !== null);
    const list = deps.catalog.list();
    const guideKey = active.map((s) => `${s.id}:${data.status(s.id).generation}`).join(",");
    const key = `${guideKey}|${catalogKey(list)}`;
    if (matchCache?.key === key) return Promise.resolve(matchCache.byChannel);
    if (building?.key === key) return building.result;
    const result = (async () => {
      const ids = active.map((s) => s.id);
      const matcher =
        matchCache !== undefined && matchCache.key.split("|")[0] === guideKey
          ? matchCache.matcher
          : createChannelMatcher(await data.channels(ids), ids);
      const byChannel = new Map(list.map((ch) => [ch.id, matcher.match(ch)]));
      matchCache = { key, matcher, byChannel };
      return byChannel;
    })().finally(() => {
      if (building?.key === key) building = undefined;
    });
    building = { key, result };
    return result;
  }

  function statusView(s: SourceStatusRow) {
    const iso = (ms: number | null) =>
      ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
    return {
      source_id: s.sourceId,
      last_attempt: iso(s.lastAttempt),
      last_success: iso(s.lastSuccess),
      stale: s.stale,
      error: s.error,
      channel_count: s.channelCount,
      programme_count: s.programmeCount,
      available: s.generation !== null,
      metadata: s.metadata,
    };
  }

  /** Identity of what epg.xml would contain: source generations, catalog, base URL. */
  function epgFingerprint(base: string): string {
    const h = createHash("sha1");
    for (const s of enabled()) {
      const st = data.status(s.id);
      h.update(`${s.id}:${st.generation ?? "-"}:${s.revision};`);
    }
    h.update(catalogKey(deps.catalog.list()));
    h.update(base);
    return `"${h.digest("base64url").slice(0, 22)}"`;
  }

  /** Programmes of a batch of guide channels, each source at the generation epg.xml started with. */
  async function programmesOf(
    generation: ReadonlyMap<string, number | null>,
    refs: readonly GuideRef[],
  ) {
    const bySource = new Map<string, string[]>();
    for (const r of refs) {
      if ((generation.get(r.sourceId) ?? null) === null) continue;
      const ids = bySource.get(r.sourceId);
      if (ids === undefined) bySource.set(r.sourceId, [r.xmltvId]);
      else ids.push(r.xmltvId);
    }
    const loaded = new Map<string, Map<string, ProgrammeRow[]>>();
    for (const [sourceId, ids] of bySource)
      loaded.set(sourceId, await data.programmes(sourceId, generation.get(sourceId)!, ids));
    return (sourceId: string, xmltvId: string): readonly ProgrammeRow[] =>
      loaded.get(sourceId)?.get(xmltvId) ?? [];
  }

  return {
    sources,
    statusView,
    refresh,
    /** Spec "Guide": 409 when no source is enabled is the route's business. */
    hasEnabledSource: () => enabled().length > 0,
    statuses: () => sources.list().map((s) => statusView(data.status(s.id))),
    /** Drops the data of a removed or hidden source. */
    async forgetSource(id: string): Promise<void> {
      await data.forget(id);
      void data.purgeOld(id, Date.now());
    },
    matches,
    async forgetValidators(id: string): Promise<void> {
      await data.clearValidators(id);
    },
    /** True when at least one enabled source holds data: playlists then carry `x-tvg-url`. */
    active: () => enabled().some((s) => data.status(s.id).generation !== null),
    /** `guide.cache: false`: every epg.xml request refreshes first (coalesced). */
    async beforeEpgRequest(): Promise<void> {
      if (!config.guide.cache && enabled().length > 0) await refresh();
    },
    async epg(base: string) {
      const byChannel = await matches();
      const generation = new Map(enabled().map((s) => [s.id, data.status(s.id).generation]));
      return {
        etag: epgFingerprint(base),
        body: renderEpg({
          channels: deps.catalog.list().filter((ch) => !ch.disabled),
          matchOf: (id) => byChannel.get(id),
          programmes: (refs) => programmesOf(generation, refs),
          logoUrl: (ch, m) =>
            ch.logo_url !== "" || (m?.match?.icon ?? "") !== ""
              ? `${base}/v1/logo/${encodeURIComponent(ch.id)}`
              : undefined,
        }),
      };
    },
    /** `byChannel`: the result of {@link matches}. */
    logoCandidates: (ch: Channel, byChannel: Map<string, ChannelMatch>) =>
      logoCandidates(ch, byChannel.get(ch.id), config.guide.logo_repositories),
    logos,
    /**
     * Starts the schedule: a first turn at once (sources whose last attempt is
     * older than the interval, or that never ran), then one per interval. With
     * several instances on one database each turn refreshes only the sources
     * it claims (docs/guide.md "Refresh"), so one instance refreshes a source
     * per interval.
     */
    async start(): Promise<void> {
      const leftovers = await data.sourcesWithProgrammes();
      if (shutdown.signal.aborted) return;
      for (const id of leftovers) {
        // Leftovers of crashes, superseded refreshes or removed sources. A
        // source's rows at or above its current generation may be a refresh
        // another instance is writing now: only the next switch deletes them.
        const current = data.status(id).generation;
        if (sources.get(id) === undefined) void data.purgeOld(id, Date.now());
        else if (current !== null) void data.purgeOld(id, current);
      }
      scheduledRefresh();
      timer = setInterval(scheduledRefresh, intervalMs);
      timer.unref();
    },
    async close() {
      if (timer !== undefined) clearInterval(timer);
      shutdown.abort();
      await inflight?.run.catch(() => undefined);
      data.close();
    },
  };
}

export type GuideService = Awaited<ReturnType<typeof createGuideService>>;
export type { GuideSource };
