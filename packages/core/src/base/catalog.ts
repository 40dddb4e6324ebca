/**
 * The channel catalog seen by playback. The lite build hands playback a static
 * catalog from the config file; the full build a database-backed one. Nothing in
 * playback knows which.
 */

export type Ingress = "hls" | "dash" | "ts";

/** Operator contract "Channel object": `id` is 1-64 characters of `[A-Za-z0-9._-]`. */
export const CHANNEL_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * A channel's `guide_number` (its number in the TV apps: HDHomeRun `GuideNumber`, M3U
 * `tvg-chno`): a major number and an optional minor one, `5` or `5.1`.
 */
export const GUIDE_NUMBER_PATTERN = /^[0-9]{1,5}(\.[0-9]{1,3})?$/;

/**
 * The number a `guide_number` stands for, for telling two apart: `05` and `5` (or `5.01`
 * and `5.1`) are one channel number to a media server.
 * @example guideNumberKey("05.01") // "5.1"
 */
export function guideNumberKey(guideNumber: string): string {
  const [major = "", minor] = guideNumber.split(".");
  return minor === undefined ? String(Number(major)) : `${Number(major)}.${Number(minor)}`;
}

/**
 * How a runtime session packages a channel locally: `dash` (the DASH packager), `ts` (the
 * MPEG-TS engine: `ingress: ts`, and an `hls` or `dash` channel with `fallback_sources`,
 * whose sources the engine reads segment by segment so it can switch between them inside
 * one output: extensions "Fallback sources and the slate", docs/failover.md), or undefined
 * for an `hls` channel proxied through the playlist rewriter.
 */
export function packagingOf(
  channel: Pick<Channel, "ingress" | "fallback_sources">,
): "dash" | "ts" | undefined {
  if (channel.ingress === "ts" || channel.fallback_sources.length > 0) return "ts";
  if (channel.ingress === "dash") return "dash";
  return undefined;
}

/** True when a runtime session packages the channel ({@link packagingOf}). */
export function isPackaged(channel: Pick<Channel, "ingress" | "fallback_sources">): boolean {
  return packagingOf(channel) !== undefined;
}
export type DashEngine = "auto" | "native" | "ffmpeg";

/**
 * One of a channel's `fallback_sources` (extensions "Fallback sources and the slate"): tried
 * in order after the primary source, with the channel's `ingress`. Its own `headers` and
 * `user_agent` (blank: none of its own, the default user agent) go to its own origin.
 */
export interface FallbackSource {
  readonly source_url: string;
  readonly upstream: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly user_agent: string;
}

/** A channel as playback and the admin API see it (operator contract "Channel object"). */
export interface Channel {
  readonly id: string;
  readonly title: string;
  readonly group: string;
  readonly logo_url: string;
  readonly epg_id: string;
  readonly epg_name: string;
  readonly epg_source: string;
  readonly ingress: Ingress;
  readonly source_url: string;
  readonly upstream: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly user_agent: string;
  readonly on_demand: boolean;
  readonly autostart: boolean;
  readonly disabled: boolean;
  readonly prefer_height: number | null;
  readonly preferred_audio_languages: readonly string[];
  readonly sort_order: number;
  /** The operator's channel number ({@link GUIDE_NUMBER_PATTERN}); "" for none. */
  readonly guide_number: string;
  readonly max_viewers: number | null;
  readonly engine: DashEngine;
  /** Per-channel ClearKey keys `{KID hex: key hex}`, overriding `media.keys`. */
  readonly keys: Readonly<Record<string, string>>;
  /** Extensions "Fallback sources and the slate": sources tried after the primary one. */
  readonly fallback_sources: readonly FallbackSource[];
  readonly revision: number;
}

/** An upstream origin that channels may reference by id (config `upstreams`). */
export interface Upstream {
  readonly id: string;
  readonly base_url: string;
  /** Extensions "Connection limits": channels pulled at once from this upstream; absent: no limit. */
  readonly max_connections?: number | undefined;
}

/** Read access to the channels, in catalog order (`sort_order`, then id). */
export interface ChannelCatalog {
  get(id: string): Channel | undefined;
  list(): readonly Channel[];
  upstream(id: string): Upstream | undefined;
}

/** Order channels the way every listing shows them: `sort_order`, then `id`. */
export function compareChannels(a: Channel, b: Channel): number {
  return a.sort_order - b.sort_order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The absolute source URL of a channel: `source_url`, or the upstream's
 * `base_url` joined with `path` (a relative path resolves against the base).
 * Returns undefined when the channel names an upstream that does not exist.
 */
export function resolveChannelSource(
  channel: Pick<Channel, "source_url" | "upstream" | "path">,
  catalog: Pick<ChannelCatalog, "upstream">,
): string | undefined {
  if (channel.source_url !== "") return channel.source_url;
  const upstream = catalog.upstream(channel.upstream);
  if (upstream === undefined) return undefined;
  const base = upstream.base_url.endsWith("/") ? upstream.base_url : `${upstream.base_url}/`;
  return new URL(channel.path.replace(/^\/+/, ""), base).href;
}

/** A catalog over a fixed list, as the lite build uses. */
export function createStaticCatalog(
  channels: readonly Channel[],
  upstreams: readonly Upstream[],
): ChannelCatalog {
  const sorted = [...channels].sort(compareChannels);
  const byId = new Map(sorted.map((c) => [c.id, c]));
  const upstreamById = new Map(upstreams.map((u) => [u.id, u]));
  return {
    get: (id) => byId.get(id),
    list: () => sorted,
    upstream: (id) => upstreamById.get(id),
  };
}

/** Channels of the config file's static catalog, each at revision 1. */
export function channelsFromConfig(channels: readonly Omit<Channel, "revision">[]): Channel[] {
  return channels.map((c) => ({ ...c, revision: 1 }));
}
