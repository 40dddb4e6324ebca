import { isoSeconds } from "@svc/core/auth";
import type { Channel } from "@svc/core/catalog";
import type { StoredChannel } from "./stored-channel.js";

/**
 * Spec "Channel": header names whose values admin responses blank —
 * `authorization`, `proxy-authorization`, `cookie`, and any name containing
 * `token`, `secret` or `api-key`.
 */
export function isSensitiveHeader(name: string): boolean {
  const n = name.toLowerCase();
  return (
    n === "authorization" ||
    n === "proxy-authorization" ||
    n === "cookie" ||
    n.includes("token") ||
    n.includes("secret") ||
    n.includes("api-key")
  );
}

export function blankSensitiveHeaders(
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = isSensitiveHeader(k) ? "" : v;
  return out;
}

/** Play URL of a channel under `base` (no credential: the caller adds its own). */
export function channelPlayUrl(base: string, id: string): string {
  return `${base}/v1/play/${encodeURIComponent(id)}/index.m3u8`;
}

/** The channel-list entry of the spec ("Fields returned by the channel list"). */
export function renderListedChannel(c: Channel, base: string) {
  return {
    id: c.id,
    title: c.title,
    group: c.group,
    logo_url: c.logo_url,
    epg_id: c.epg_id,
    epg_name: c.epg_name,
    epg_source: c.epg_source,
    ingress: c.ingress,
    on_demand: c.on_demand,
    autostart: c.autostart,
    source_url: c.source_url,
    upstream: c.upstream,
    path: c.path,
    disabled: c.disabled,
    prefer_height: c.prefer_height,
    preferred_audio_languages: c.preferred_audio_languages,
    sort_order: c.sort_order,
    revision: c.revision,
    play_url: channelPlayUrl(base, c.id),
  };
}

/**
 * The admin view: the list entry plus the write-only fields, with sensitive
 * header values and ClearKey key values blanked (a blank write keeps them).
 */
export function renderAdminChannel(c: StoredChannel, base: string) {
  return {
    ...renderListedChannel(c, base),
    headers: blankSensitiveHeaders(c.headers),
    user_agent: c.user_agent,
    max_viewers: c.max_viewers,
    engine: c.engine,
    keys: Object.fromEntries(Object.keys(c.keys).map((kid) => [kid, ""])),
    updated_at: isoSeconds(new Date(c.updated_at)),
  };
}

export function renderEgressBinding(c: StoredChannel) {
  return c.egress_mode === "profile"
    ? { mode: c.egress_mode, profile_id: c.egress_profile_id }
    : { mode: c.egress_mode };
}
