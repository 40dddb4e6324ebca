import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Channel, ChannelCatalog } from "@svc/core/catalog";
import type { GatewayConfig } from "@svc/core/config";
import type { Egress } from "@svc/core/egress";
import type { Logger } from "@svc/core/log";
import type { GuideRepository } from "../../storage/guide/repository.js";
import type { ChangeFeed } from "../../storage/kernel/change-feed.js";
import { type ChannelMatch, type ChannelMatcher, createChannelMatcher } from "./channel-matcher.js";
import { type GuideRef, mergeProgrammes, renderEpg } from "./epg-writer.js";
import { openGuideData, type ProgrammeRow, type SourceStatusRow } from "./guide-data.js";
import { createGuideRefresher } from "./guide-refresher.js";
import { createLogoCache } from "./logo-cache.js";
import { logoCandidates } from "./logo-candidates.js";
import { resolveChannelProgrammes } from "./programme-order.js";
import { type GuideSource, openGuideSourceStore } from "./source-store.js";

export type { RefreshOutcome } from "./guide-refresher.js";

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
  const refresher = createGuideRefresher({
    sources,
    data,
    egress: deps.egress,
    limits: {
      maxDownloadBytes: config.guide.max_download_bytes,
      maxXmlBytes: config.guide.max_xml_bytes,
    },
    userAgent: deps.userAgent,
    intervalMs: config.guide.refresh_interval_min * 60_000,
    minOnDemandMs: config.guide.min_refresh_sec * 1000,
    log,
  });
  const enabled = () => sources.list().filter((s) => s.enabled);
  const refresh = refresher.refresh;

  // Matching is rebuilt only when the switched generations of the enabled
  // sources or the catalog changed; epg.xml, the matches listing and logos
  // share the result, and concurrent callers share one rebuild.
  let matchCache:
    | { key: string; matcher: ChannelMatcher; byChannel: Map<string, ChannelMatch> }
    | undefined;
  let building: { key: string; result: Promise<Map<string, ChannelMatch>> } | undefined;
  function catalogKey(list: readonly Channel[]): string {
    const h = createHash("sha1");
    // One update per 1,024 channels: the hash is that of the whole text, and 40,000
    // native calls cost more than the hashing itself.
    let part = "";
    for (let i = 0; i < list.length; i++) {
      part += `${list[i]!.id}\u0000${list[i]!.revision}\u0000`;
      if ((i & 1023) === 1023) {
        h.update(part);
        part = "";
      }
    }
    h.update(part);
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
      const byChannel = new Map<string, ChannelMatch>();
      for (const ch of list) byChannel.set(ch.id, matcher.match(ch));
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
    /**
     * `guide.cache: false`: an epg.xml request refreshes first the sources not
     * attempted for `guide.min_refresh_sec` (coalesced).
     */
    async beforeEpgRequest(): Promise<void> {
      if (!config.guide.cache && enabled().length > 0) await refresher.refreshOnDemand();
    },
    /**
     * `view`: another view of the same guide: these channels, in this order (a playback key's
     * scope for Xtream's `xmltv.php`; HDHomeRun's `guide.xml`), under these `<channel id>`s
     * when `xmltvId` is given; the ETag is then not meaningful.
     */
    async epg(
      base: string,
      view?: { channels: readonly Channel[]; xmltvId?: (ch: Channel) => string },
    ) {
      const byChannel = await matches();
      const generation = new Map(enabled().map((s) => [s.id, data.status(s.id).generation]));
      return {
        etag: epgFingerprint(base),
        body: renderEpg({
          ...(view?.xmltvId === undefined ? {} : { xmltvId: view.xmltvId }),
          channels: view?.channels ?? deps.catalog.list().filter((ch) => !ch.disabled),
          matchOf: (id) => byChannel.get(id),
          programmes: (refs) => programmesOf(generation, refs),
          logoUrl: (ch, m) =>
            ch.logo_url !== "" || (m?.match?.icon ?? "") !== ""
              ? `${base}/v1/logo/${encodeURIComponent(ch.id)}`
              : undefined,
        }),
      };
    },
    /**
     * The programmes of one gateway channel as epg.xml has them (merged over its matched
     * guide channels, in time order): Xtream's short EPG reads them.
     */
    async channelProgrammes(channelId: string): Promise<ProgrammeRow[]> {
      const refs = (await matches()).get(channelId)?.guideRefs ?? [];
      if (refs.length === 0) return [];
      const generation = new Map(enabled().map((s) => [s.id, data.status(s.id).generation]));
      const lookup = await programmesOf(generation, refs);
      return mergeProgrammes(
        refs.map((r) => resolveChannelProgrammes(lookup(r.sourceId, r.xmltvId))),
      );
    },
    /** `byChannel`: the result of {@link matches}. */
    logoCandidates: (ch: Channel, byChannel: Map<string, ChannelMatch>) =>
      logoCandidates(ch, byChannel.get(ch.id), config.guide.logo_repositories),
    logos,
    /**
     * Starts the refresh schedule (docs/guide.md "Refresh"): a first turn at
     * once, then one per `guide.refresh_interval_min`.
     */
    start: () => refresher.start(),
    close: () => refresher.close(),
  };
}

export type GuideService = Awaited<ReturnType<typeof createGuideService>>;
export type { GuideSource };
