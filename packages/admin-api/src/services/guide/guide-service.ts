import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Channel, ChannelCatalog } from "@svc/core/catalog";
import type { GatewayConfig } from "@svc/core/config";
import type { Egress } from "@svc/core/egress";
import type { Logger } from "@svc/core/log";
import type { StateDb } from "../../db/client.js";
import { type ChannelMatch, type ChannelMatcher, createChannelMatcher } from "./channel-matcher.js";
import { renderEpg } from "./epg-writer.js";
import { createGuideData, type SourceStatusRow } from "./guide-data.js";
import { createLogoCache } from "./logo-cache.js";
import { logoCandidates } from "./logo-candidates.js";
import { importSource } from "./source-import.js";
import { createGuideSourceStore, type GuideSource } from "./source-store.js";

export interface GuideServiceDeps {
  readonly config: GatewayConfig;
  readonly db: StateDb;
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
 * The programme guide of the full build: sources, refresh (scheduled, on
 * request, or on demand per epg.xml request with `guide.cache: false`), matching,
 * the XMLTV output and the logos. Business rules live here and in the modules it
 * composes; the routes only translate HTTP.
 */
export function createGuideService(deps: GuideServiceDeps) {
  const { config, log } = deps;
  const sources = createGuideSourceStore(deps.db);
  const data = createGuideData(deps.db);
  const logos = createLogoCache({
    dir: join(config.server.data_dir, "logos"),
    egress: deps.egress,
    userAgent: deps.userAgent,
  });
  const limits = {
    maxDownloadBytes: config.guide.max_download_bytes,
    maxXmlBytes: config.guide.max_xml_bytes,
  };
  let inflight: Promise<RefreshOutcome> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const shutdown = new AbortController();

  const enabled = () => sources.list().filter((s) => s.enabled);

  async function runRefresh(): Promise<RefreshOutcome> {
    const statuses: SourceStatusRow[] = [];
    // One source after the other: each parse is CPU-bound and the machine's
    // memory stays bounded by one document's pieces.
    for (const source of enabled()) {
      const started = Date.now();
      const status = await importSource(
        { egress: deps.egress, data, limits, userAgent: deps.userAgent, signal: shutdown.signal },
        source,
      ).catch((err: unknown) => {
        log.error({ err, source: source.id }, "guide refresh failed unexpectedly");
        const prev = data.status(source.id);
        const s = {
          ...prev,
          lastAttempt: started,
          stale: prev.generation !== null,
          error: "internal error",
        };
        data.writeStatus(s);
        return s;
      });
      log.info(
        {
          source: source.id,
          ok: status.error === null,
          error: status.error,
          channels: status.channelCount,
          programmes: status.programmeCount,
          dur_ms: Date.now() - started,
        },
        "guide source refreshed",
      );
      // Removed while it was being read: its rows must not outlive it.
      if (sources.get(source.id) === undefined) {
        data.forget(source.id);
        void data.purgeOld(source.id, Date.now());
        continue;
      }
      statuses.push(status);
    }
    return { ok: statuses.every((s) => s.error === null), statuses };
  }

  /** Refreshes every enabled source; concurrent callers share the run in progress. */
  function refresh(): Promise<RefreshOutcome> {
    if (inflight === undefined) inflight = runRefresh().finally(() => (inflight = undefined));
    return inflight;
  }

  // Matching is rebuilt only when the guide data, the enabled sources or the
  // catalog changed; epg.xml, the matches listing and logos share the result.
  let matchCache:
    | { key: string; matcher: ChannelMatcher; byChannel: Map<string, ChannelMatch> }
    | undefined;
  function catalogKey(list: readonly Channel[]): string {
    const h = createHash("sha1");
    for (const ch of list) h.update(`${ch.id}\u0000${ch.revision}\u0000`);
    return h.digest("hex");
  }
  function matches(): Map<string, ChannelMatch> {
    const active = enabled().filter((s) => data.status(s.id).generation !== null);
    const list = deps.catalog.list();
    const key = `${data.version()}|${active.map((s) => s.id).join(",")}|${catalogKey(list)}`;
    if (matchCache?.key === key) return matchCache.byChannel;
    const ids = active.map((s) => s.id);
    const matcher =
      matchCache !== undefined &&
      matchCache.key.split("|").slice(0, 2).join("|") === key.split("|").slice(0, 2).join("|")
        ? matchCache.matcher
        : createChannelMatcher(data.channels(ids), ids);
    const byChannel = new Map(list.map((ch) => [ch.id, matcher.match(ch)]));
    matchCache = { key, matcher, byChannel };
    return byChannel;
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

  return {
    sources,
    statusView,
    refresh,
    /** Spec "Guide": 409 when no source is enabled is the route's business. */
    hasEnabledSource: () => enabled().length > 0,
    statuses: () => sources.list().map((s) => statusView(data.status(s.id))),
    /** Drops the data of a removed or hidden source. */
    forgetSource(id: string) {
      data.forget(id);
      void data.purgeOld(id, Date.now());
    },
    matches,
    forgetValidators(id: string) {
      const st = data.status(id);
      if (st.lastAttempt !== null) data.writeStatus({ ...st, etag: null, lastModified: null });
    },
    /** True when at least one enabled source holds data: playlists then carry `x-tvg-url`. */
    active: () => enabled().some((s) => data.status(s.id).generation !== null),
    /** `guide.cache: false`: every epg.xml request refreshes first (coalesced). */
    async beforeEpgRequest(): Promise<void> {
      if (!config.guide.cache && enabled().length > 0) await refresh();
    },
    epg(base: string) {
      const byChannel = matches();
      const generation = new Map(enabled().map((s) => [s.id, data.status(s.id).generation]));
      return {
        etag: epgFingerprint(base),
        body: renderEpg({
          channels: deps.catalog.list().filter((ch) => !ch.disabled),
          matchOf: (id) => byChannel.get(id),
          programmes: (sourceId, xmltvId) => {
            const g = generation.get(sourceId);
            return g === undefined || g === null ? [] : data.programmes(sourceId, g, xmltvId);
          },
          logoUrl: (ch, m) =>
            ch.logo_url !== "" || (m?.match?.icon ?? "") !== ""
              ? `${base}/v1/logo/${encodeURIComponent(ch.id)}`
              : undefined,
        }),
      };
    },
    /** `byChannel`: the result of {@link matches} when the caller lists every channel. */
    logoCandidates: (ch: Channel, byChannel: Map<string, ChannelMatch> = matches()) =>
      logoCandidates(ch, byChannel.get(ch.id), config.guide.logo_repositories),
    logos,
    /** Starts the schedule; a first refresh runs at once when the data is older than the interval. */
    start() {
      const bootTime = Date.now();
      // Node timers hold at most 2^31-1 ms (~24.8 days); a longer interval would fire at once.
      const intervalMs = Math.min(config.guide.refresh_interval_min * 60_000, 2_147_483_647);
      for (const id of data.sourcesWithProgrammes()) {
        const s = sources.get(id);
        // Leftovers of a crash or of removed sources; refreshes of this process
        // use generations from now on and are never touched.
        void data.purgeOld(id, bootTime, s === undefined ? null : data.status(id).generation);
      }
      const due = enabled().some((s) => {
        const last = data.status(s.id).lastAttempt;
        return last === null || Date.now() - last >= intervalMs;
      });
      if (due) void refresh();
      timer = setInterval(() => void refresh(), intervalMs);
      timer.unref();
    },
    async close() {
      if (timer !== undefined) clearInterval(timer);
      shutdown.abort();
      await inflight?.catch(() => undefined);
      data.close();
    },
  };
}

export type GuideService = ReturnType<typeof createGuideService>;
export type { GuideSource };
