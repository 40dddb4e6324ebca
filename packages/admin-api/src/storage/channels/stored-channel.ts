import type { Channel } from "@svc/core/catalog";
import type { RouteBinding } from "@svc/core/egress";
import type { channels } from "../../db/schema/index.js";
import type { M3uSynced } from "../../db/tables/m3u-synced.js";

export type ChannelRow = typeof channels.$inferSelect;
export type EgressMode = "auto" | "direct" | "profile";

/** A catalog channel with what only the admin API shows: egress binding and update time. */
export interface StoredChannel extends Channel {
  readonly egress_mode: EgressMode;
  readonly egress_profile_id: string | null;
  /** Epoch milliseconds. */
  readonly updated_at: number;
  /** The M3U provider source owning the channel (absent or "": none; docs/m3u-sources.md). */
  readonly m3u_source?: string;
  /** What that source's last sync wrote (absent or null: never synced). */
  readonly m3u_synced?: M3uSynced | null;
}

export function channelFromRow(r: ChannelRow): StoredChannel {
  return {
    id: r.id,
    title: r.title,
    group: r.group,
    logo_url: r.logoUrl,
    epg_id: r.epgId,
    epg_name: r.epgName,
    epg_source: r.epgSource,
    ingress: r.ingress,
    source_url: r.sourceUrl,
    upstream: r.upstream,
    path: r.path,
    headers: r.headers,
    user_agent: r.userAgent,
    on_demand: r.onDemand,
    autostart: r.autostart,
    disabled: r.disabled,
    prefer_height: r.preferHeight,
    preferred_audio_languages: r.preferredAudioLanguages,
    sort_order: r.sortOrder,
    guide_number: r.guideNumber,
    max_viewers: r.maxViewers,
    engine: r.engine,
    keys: r.keys,
    fallback_sources: r.fallbackSources,
    revision: r.revision,
    egress_mode: r.egressMode,
    egress_profile_id: r.egressProfileId,
    updated_at: r.updatedAt,
    ...(r.m3uSource === "" ? {} : { m3u_source: r.m3uSource, m3u_synced: r.m3uSynced }),
  };
}

export function rowFromChannel(c: StoredChannel): ChannelRow {
  return {
    id: c.id,
    title: c.title,
    group: c.group,
    logoUrl: c.logo_url,
    epgId: c.epg_id,
    epgName: c.epg_name,
    epgSource: c.epg_source,
    ingress: c.ingress,
    sourceUrl: c.source_url,
    upstream: c.upstream,
    path: c.path,
    headers: { ...c.headers },
    userAgent: c.user_agent,
    onDemand: c.on_demand,
    autostart: c.autostart,
    disabled: c.disabled,
    preferHeight: c.prefer_height,
    preferredAudioLanguages: [...c.preferred_audio_languages],
    sortOrder: c.sort_order,
    guideNumber: c.guide_number,
    maxViewers: c.max_viewers,
    engine: c.engine,
    keys: { ...c.keys },
    fallbackSources: c.fallback_sources.map((f) => ({ ...f, headers: { ...f.headers } })),
    egressMode: c.egress_mode,
    egressProfileId: c.egress_profile_id,
    m3uSource: c.m3u_source ?? "",
    m3uSynced: c.m3u_synced ?? null,
    revision: c.revision,
    updatedAt: c.updated_at,
  };
}

/** The channel's binding as the egress module routes by it. */
export function bindingOfChannel(c: StoredChannel): RouteBinding {
  return c.egress_mode === "profile"
    ? { mode: "profile", profileId: c.egress_profile_id ?? "" }
    : { mode: c.egress_mode };
}
