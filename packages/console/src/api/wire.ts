import type { BodyOf } from "./request.js";

/**
 * The wire shapes the console uses. Request bodies come from the types generated
 * out of the gateway's OpenAPI document (`BodyOf`), so they cannot drift from the
 * server's valibot schemas. The document carries no answer schemas yet (only
 * request bodies, parameters and error codes), so the answers the console reads
 * are declared here (spec "Resources and their fields", docs/admin-api.md); once a
 * route documents its answer, `request()` checks the client's declared type
 * against it.
 */

export type ChannelWrite = BodyOf<"put", "/v1/admin/channels/{id}">;
export type EgressMode = NonNullable<ChannelWrite["egress"]>["mode"];
export type Scope = NonNullable<BodyOf<"post", "/v1/admin/api-tokens">["scopes"]>[number];
export type EgressRule = BodyOf<"post", "/v1/admin/egress/rules">;
export type RuleKind = EgressRule["kind"];
export type SettingsWrite = BodyOf<"put", "/v1/admin/settings">;
export type EgressTest = BodyOf<"post", "/v1/admin/egress/test">;

/** One of a channel's `fallback_sources` as the API returns it (sensitive values blank). */
export type FallbackSourceWire = Required<NonNullable<ChannelWrite["fallback_sources"]>[number]>;

/**
 * A stored channel: every field of the write filled in, plus the read-only ones;
 * `fallback_sources` only when the channel has some (docs/failover.md "Admin API").
 */
export type Channel = Required<Omit<ChannelWrite, "egress" | "fallback_sources">> & {
  fallback_sources?: FallbackSourceWire[];
  revision: number;
  play_url: string;
  updated_at: string;
};

export interface LoginAnswer {
  token: string;
  expires_at: string;
  username: string;
  role: string;
}

export interface Me {
  username: string;
  role: string;
  channel_ids: string[];
  credential: "session" | "api_token";
  scopes: Scope[] | null;
}

export interface RuntimeSession {
  channel_id: string;
  /** null on another instance's session (cluster mode, `state: "remote"`), as the fields below. */
  mode: string | null;
  engine: string | null;
  pack_mode: string | null;
  fallback_reason: string | null;
  started_at: string | null;
  last_touch: string;
  state: string;
  errors: number | null;
  last_error: string | null;
  packager?: Record<string, unknown> | null;
  /** Channels with fallback sources: the source in use (0 = the primary) and the switches so far. */
  active_source?: number;
  failovers?: number;
  /** Cluster mode: the instance that packages the channel, and where it is reached. */
  owner?: string;
  owner_url?: string;
}

export interface Status {
  uptime_sec: number;
  bytes_in: number;
  bytes_out: number;
  requests: number;
  errors: number;
  goroutines: number;
  session_count: number;
  sessions: RuntimeSession[];
}

export interface EgressBinding {
  mode: EgressMode;
  profile_id?: string | null;
}

export interface ChannelDetail {
  channel: Channel;
  egress_binding: EgressBinding;
  effective_user_agent: string;
  revision: number;
  updated_at: string;
}

/** A channel write's answer; `dropped_secrets` when secrets stayed behind with an old origin. */
export interface ChannelWriteAnswer {
  ok: boolean;
  id: string;
  dropped_secrets?: string[];
}

export interface BulkAnswer {
  ok: boolean;
  changed: number;
  channel_ids: string[];
}

export interface ReorderAnswer extends BulkAnswer {
  revisions: Record<string, number>;
}

export interface ProbeAnswer {
  ok: boolean;
  status?: number;
  content_type?: string;
  final_url?: string;
  dur_ms: number;
  error?: string;
  inspection?: {
    native_supported: boolean;
    suggested_engine: string;
    reason: string | null;
    encrypted: boolean;
    kids: string[];
  } | null;
}

export interface ApiToken {
  id: string;
  name: string;
  note: string;
  token_prefix: string;
  scopes: Scope[];
  enabled: boolean;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at?: string | null;
  revision: number;
  updated_at: string;
}

export interface IssuedApiToken {
  token: string;
  credential: ApiToken;
  warning: string;
}

export interface AuditRecord {
  id: number | string;
  token_id: string;
  token_prefix: string;
  method: string;
  path: string;
  required_scope: string | null;
  decision: "allow" | "deny";
  status: number;
  remote: string;
  user_agent: string;
  request_id: string;
  created_at: string;
  reason?: string;
}

export interface PlaybackKey {
  id: string;
  name: string;
  token_prefix: string;
  scope: { all: boolean; channel_ids: string[] };
  enabled: boolean;
  note: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  expires_at: string | null;
  /** Concurrent streams allowed under the key; null: unlimited. */
  max_connections: number | null;
  /** Streams open under the key on this instance. */
  active_cons: number;
  revision: number;
  /** Extensions "Xtream Codes output": the key's Xtream login name, or null. */
  xtream_username: string | null;
}

export interface IssuedPlaybackKey {
  id: string;
  name: string;
  token: string;
  token_prefix: string;
  scope: PlaybackKey["scope"];
  playlist_url: string;
  created_at: string;
  expires_at: string | null;
  max_connections: number | null;
  /** With extensions.hdhomerun: the key's HDHomeRun tuner address. */
  hdhomerun_url?: string;
  /** With an `xtream_username`: the Xtream password, shown once. */
  xtream_username?: string;
  xtream_password?: string;
  warning: string;
}

/** `POST /v1/admin/access-tokens/{id}/xtream-password` (extension xtream). */
export interface IssuedXtreamPassword {
  id: string;
  xtream_username: string;
  xtream_password: string;
  revision: number;
  warning: string;
}

export interface AccessRecord {
  id: number | string;
  token_id: string;
  token_prefix: string;
  path: string;
  channel_id: string | null;
  status: number;
  remote: string;
  created_at: string;
}

export interface Settings {
  listen: string;
  cors_origins: string[];
  public_hosts: string[];
  play_require_auth: boolean;
  tls_listen: string;
  public_base_url: string;
  access_log_retention_days: string;
  tls_enabled: boolean;
  split_listening: boolean;
  certificate: {
    source: string;
    path: string;
    hosts: string[];
    expires_at: string | null;
    error: string | null;
  };
  revision: number;
}

export interface Upstream {
  id: string;
  base_url: string;
}

/** Guide (spec "Guide source"); fields beyond the write body are not fixed by the spec. */
export interface GuideSourceWrite {
  id: string;
  name?: string;
  url?: string;
  timezone?: string;
  proxy?: string;
  enabled?: boolean;
}

export interface GuideSourceEntry {
  source: GuideSourceWrite & Record<string, unknown>;
  enabled: boolean;
  revision: number;
  updated_at: string;
}

export interface GuideStatus {
  source_id: string;
  last_attempt: string | null;
  last_success: string | null;
  stale: boolean;
  error: string | null;
  channel_count: number;
  programme_count: number;
  available: boolean;
  metadata?: unknown;
}

/** Extension "M3U provider sources" (docs/m3u-sources.md). */
export interface M3uSource {
  id: string;
  name: string;
  url: string;
  enabled: boolean;
  refresh_interval_min: number;
  upstream: string;
  group_filter: string[];
  remove_missing: boolean;
  revision: number;
  updated_at: string;
}

export type M3uSourceWrite = Partial<Omit<M3uSource, "revision" | "updated_at">>;

export interface M3uSourceStatus {
  source_id: string;
  last_attempt: string | null;
  last_success: string | null;
  error: string | null;
  created: number;
  updated: number;
  disabled: number;
  skipped: number;
}

/** Why a guide channel was matched or offered (docs/guide.md "Matching"). */
export type GuideMatchReason = "exact_id" | "exact_name" | "lcn" | "id_name" | "fuzzy";

export interface GuideCandidate {
  source_id: string;
  epg_id: string;
  display_name: string;
  /** 1 for an exact id or name, the fuzzy similarity otherwise. */
  score: number;
  reason: GuideMatchReason;
  present: boolean;
}

export interface GuideMatch {
  channel_id: string;
  status: string;
  match?: Omit<GuideCandidate, "present"> & { method: string; manual: boolean; icon: string };
  candidates: GuideCandidate[];
  logo_candidates?: unknown[];
}

export type EgressProxy = BodyOf<"post", "/v1/admin/egress/proxies"> & {
  id: string;
  credential_configured?: boolean;
  revision?: number;
};

export interface EgressConfig {
  default: string;
  playlist_policy: NonNullable<BodyOf<"put", "/v1/admin/egress">["playlist_policy"]>;
  docker_proxy_host: string;
  proxies: EgressProxy[];
  rules: EgressRule[];
  source: string;
  revision: number;
}

export interface EgressTestAnswer {
  ok: boolean;
  reachable: boolean;
  outcome: string;
  status?: number | null;
  proxy_id?: string | null;
  via_proxy?: boolean;
  reason?: string | null;
  rewrite?: unknown;
  final_url?: string | null;
  ttfb_ms?: number | null;
  sample_bytes?: number | null;
  throughput_kbps?: number | null;
  dur_ms: number;
  target?: string;
  error?: string;
}

export interface ImportEntry {
  id?: string;
  title?: string;
  action?: string;
  status?: string;
  reason?: string;
  revision?: number;
  /** A `fallback` entry: its place in the channel's `fallback_sources`. */
  fallback_index?: number;
  /** A channel entry with a `tvg-id` under `duplicates: "fallbacks"`: its fallback sources. */
  fallbacks?: number;
  [field: string]: unknown;
}

export interface ImportAnswer {
  preview: boolean;
  count: number;
  created: number | ImportEntry[];
  updated: number | ImportEntry[];
  skipped: number | ImportEntry[];
  entries: ImportEntry[];
  revisions?: Record<string, number>;
  /** `duplicates: "fallbacks"`: the entries that became fallback sources. */
  fallbacks?: number;
}

/** How the import treats entries sharing a `tvg-id` (docs/m3u.md). */
export type DuplicatesMode = "channels" | "fallbacks";
