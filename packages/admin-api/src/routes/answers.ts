import * as v from "valibot";
import { TOKEN_SCOPES } from "../services/api-tokens/token-scopes.js";

/**
 * The JSON answers of the admin API and the full build's public routes, each resource
 * written once (spec "Resources and their fields"; the extensions' fields as
 * extensions.md adds them) and reused by the route declarations (`success[2]`), from
 * which the OpenAPI document's response schemas and the console's answer types are
 * derived. Objects are strict where the spec fixes the fields, so a field a handler
 * adds without documenting it fails `tests/src/full/answer-schemas.test.ts`; they are
 * loose only where the spec leaves the contents open ("not shown").
 */

/** ISO 8601 UTC to the second, as the contract writes timestamps. */
export const time = v.pipe(v.string(), v.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/));
const nullableTime = v.nullable(time);
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const revision = count;
const ingress = v.picklist(["hls", "dash", "ts"]);
const headers = v.record(v.string(), v.string());

/** `{ok: true}`. */
export const okAnswer = v.strictObject({ ok: v.literal(true) });

// ---- Channels (spec "Channel")

const listedChannelFields = {
  id: v.string(),
  title: v.string(),
  group: v.string(),
  logo_url: v.string(),
  epg_id: v.string(),
  epg_name: v.string(),
  epg_source: v.string(),
  ingress,
  on_demand: v.boolean(),
  autostart: v.boolean(),
  source_url: v.string(),
  upstream: v.string(),
  path: v.string(),
  disabled: v.boolean(),
  prefer_height: v.nullable(v.number()),
  preferred_audio_languages: v.array(v.string()),
  sort_order: v.number(),
  revision,
  play_url: v.string(),
};

/** An entry of `GET /v1/channels` (spec "Fields returned by the channel list"). */
export const listedChannel = v.strictObject(listedChannelFields);

export const listedChannelList = v.strictObject({ channels: v.array(listedChannel) });

/** One of a channel's `fallback_sources` (extensions "Fallback sources"; secrets blanked). */
export const fallbackSource = v.strictObject({
  source_url: v.string(),
  upstream: v.string(),
  path: v.string(),
  headers,
  user_agent: v.string(),
});

/**
 * A channel as the admin API shows it: the list entry plus the write-only fields,
 * sensitive header and key values blank; `fallback_sources`, `guide_number` and
 * `m3u_source` only when set (extensions).
 */
export const adminChannel = v.strictObject({
  ...listedChannelFields,
  headers,
  user_agent: v.string(),
  max_viewers: v.nullable(v.number()),
  engine: v.picklist(["auto", "native", "ffmpeg"]),
  keys: headers,
  fallback_sources: v.optional(v.array(fallbackSource)),
  guide_number: v.optional(v.string()),
  updated_at: time,
  m3u_source: v.optional(v.string()),
});

export const adminChannelList = v.strictObject({ channels: v.array(adminChannel) });

export const egressBinding = v.union([
  v.strictObject({ mode: v.picklist(["auto", "direct"]) }),
  v.strictObject({ mode: v.literal("profile"), profile_id: v.string() }),
]);

export const channelDetail = v.strictObject({
  channel: adminChannel,
  egress_binding: egressBinding,
  effective_user_agent: v.string(),
  revision,
  updated_at: time,
});

/** A channel write: `dropped_secrets` when stored secrets stayed behind with an old origin. */
export const channelWriteAnswer = v.strictObject({
  ok: v.literal(true),
  id: v.string(),
  egress_profile_id: v.nullable(v.string()),
  dropped_secrets: v.optional(v.array(v.string())),
});

export const channelDeleteAnswer = v.strictObject({ ok: v.literal(true), id: v.string() });

export const bulkAnswer = v.strictObject({
  ok: v.literal(true),
  changed: count,
  channel_ids: v.array(v.string()),
});

export const reorderAnswer = v.strictObject({
  ...bulkAnswer.entries,
  revisions: v.record(v.string(), revision),
});

export const previewAnswer = v.strictObject({ play_url: v.string(), expires_at: time });

// ---- Status (spec "Runtime session (status)")

/**
 * A runtime session: the spec's fields, the packager `generation`, the failover facts
 * of a channel with fallback sources (docs/failover.md) and, in cluster mode, who runs
 * it under which lease (operator contract "Cluster mode"). Loose: the packager block's
 * contents are "not shown", and an engine may report more of its own.
 */
export const runtimeSession = v.looseObject({
  channel_id: v.string(),
  mode: v.nullable(v.string()),
  engine: v.nullable(v.string()),
  pack_mode: v.nullable(v.string()),
  fallback_reason: v.nullable(v.string()),
  started_at: v.nullable(time),
  last_touch: time,
  state: v.string(),
  errors: v.nullable(v.number()),
  last_error: v.nullable(v.string()),
  packager: v.optional(v.nullable(v.looseObject({}))),
  generation: v.optional(v.nullable(v.string())),
  active_source: v.optional(count),
  failovers: v.optional(count),
  owner: v.optional(v.string()),
  owner_url: v.optional(v.string()),
  lease_generation: v.optional(v.nullable(count)),
  lease_expires_at: v.optional(v.nullable(v.string())),
});

export const statusAnswer = v.strictObject({
  uptime_sec: count,
  bytes_in: count,
  bytes_out: count,
  requests: count,
  errors: count,
  goroutines: count,
  session_count: count,
  sessions: v.array(runtimeSession),
  /** Extensions "Connection limits": present once an upstream has `max_connections`. */
  upstreams: v.optional(
    v.array(
      v.strictObject({
        id: v.string(),
        connections: count,
        max_connections: v.nullable(count),
      }),
    ),
  ),
});

export const meAnswer = v.strictObject({
  username: v.string(),
  role: v.string(),
  channel_ids: v.array(v.string()),
  credential: v.picklist(["session", "api_token"]),
  scopes: v.nullable(v.array(v.picklist(TOKEN_SCOPES))),
});

export const serviceInfoAnswer = v.strictObject({
  name: v.string(),
  version: v.string(),
  commit: v.string(),
  admin: v.literal("/admin"),
});

export const upstreamsAnswer = v.strictObject({
  upstreams: v.array(v.strictObject({ id: v.string(), base_url: v.string() })),
});

// ---- Administrator API tokens

/** The API token resource; `revoked_at` beyond the spec's list (null until revoked). */
export const apiToken = v.strictObject({
  id: v.string(),
  name: v.string(),
  note: v.string(),
  token_prefix: v.string(),
  scopes: v.array(v.picklist(TOKEN_SCOPES)),
  enabled: v.boolean(),
  created_by: v.string(),
  created_at: time,
  expires_at: nullableTime,
  last_used_at: nullableTime,
  revoked_at: nullableTime,
  revision,
  updated_at: time,
});

export const apiTokenList = v.strictObject({
  tokens: v.array(apiToken),
  available_scopes: v.array(v.picklist(TOKEN_SCOPES)),
});

/** Create and rotate: the plaintext, shown once. */
export const issuedApiToken = v.strictObject({
  token: v.string(),
  credential: apiToken,
  warning: v.string(),
});

export const apiTokenCredential = v.strictObject({ credential: apiToken });

/** An audit record; denied ones also carry `reason`. */
export const auditRecord = v.strictObject({
  id: v.string(),
  token_id: v.string(),
  token_prefix: v.string(),
  method: v.string(),
  path: v.string(),
  required_scope: v.nullable(v.string()),
  decision: v.picklist(["allow", "deny"]),
  status: v.number(),
  remote: v.string(),
  user_agent: v.string(),
  request_id: v.string(),
  created_at: time,
  reason: v.optional(v.string()),
});

export const auditLog = v.strictObject({ logs: v.array(auditRecord) });

// ---- Playback keys

const keyScope = v.strictObject({ all: v.boolean(), channel_ids: v.array(v.string()) });

/**
 * A playback key in the list: the spec's fields plus the extensions' `max_connections`,
 * `active_cons` (streams open under it on this instance) and `xtream_username`.
 */
export const playbackKey = v.strictObject({
  id: v.string(),
  name: v.string(),
  token_prefix: v.string(),
  scope: keyScope,
  enabled: v.boolean(),
  note: v.string(),
  created_at: time,
  last_used_at: nullableTime,
  revoked_at: nullableTime,
  expires_at: nullableTime,
  max_connections: v.nullable(count),
  revision,
  xtream_username: v.nullable(v.string()),
  active_cons: count,
});

export const playbackKeyList = v.strictObject({ access_tokens: v.array(playbackKey) });

/** A created key, its plaintext shown once; the extensions add the Xtream login and tuner URL. */
export const issuedPlaybackKey = v.strictObject({
  id: v.string(),
  name: v.string(),
  token: v.string(),
  token_prefix: v.string(),
  scope: keyScope,
  playlist_url: v.string(),
  created_at: time,
  expires_at: nullableTime,
  max_connections: v.nullable(count),
  xtream_username: v.optional(v.string()),
  xtream_password: v.optional(v.string()),
  hdhomerun_url: v.optional(v.string()),
  warning: v.string(),
});

export const issuedXtreamPassword = v.strictObject({
  id: v.string(),
  xtream_username: v.string(),
  xtream_password: v.string(),
  revision,
  warning: v.string(),
});

export const accessRecord = v.strictObject({
  id: v.string(),
  token_id: v.string(),
  token_prefix: v.string(),
  path: v.string(),
  channel_id: v.nullable(v.string()),
  status: v.number(),
  remote: v.string(),
  created_at: time,
});

export const accessLog = v.strictObject({ access_logs: v.array(accessRecord) });
export const accessLogCleared = v.strictObject({ deleted: count });

// ---- Settings

export const settings = v.strictObject({
  listen: v.string(),
  cors_origins: v.array(v.string()),
  public_hosts: v.array(v.string()),
  play_require_auth: v.boolean(),
  tls_listen: v.string(),
  public_base_url: v.string(),
  access_log_retention_days: v.string(),
  tls_enabled: v.boolean(),
  split_listening: v.boolean(),
  certificate: v.strictObject({
    source: v.picklist(["none", "file"]),
    path: v.string(),
    hosts: v.array(v.string()),
    expires_at: nullableTime,
    error: v.nullable(v.string()),
  }),
  revision,
});

// ---- Egress (spec "Egress configuration")

/** A proxy profile: its url reduced to scheme and host. */
export const proxyProfile = v.strictObject({
  id: v.string(),
  name: v.string(),
  url: v.string(),
  disabled: v.boolean(),
  credential_configured: v.boolean(),
  revision,
});

export const routingRule = v.strictObject({
  id: v.string(),
  kind: v.picklist(["host_suffix", "host_exact", "channel_id", "host_regex", "url_regex"]),
  pattern: v.string(),
  proxy: v.string(),
});

export const egressConfiguration = v.strictObject({
  default: v.string(),
  playlist_policy: v.picklist(["rewrite", "passthrough", "auto"]),
  docker_proxy_host: v.string(),
  proxies: v.array(proxyProfile),
  rules: v.array(routingRule),
  source: v.string(),
  revision,
});

export const proxyWriteAnswer = v.strictObject({
  ok: v.literal(true),
  proxy: proxyProfile,
  egress: egressConfiguration,
});

export const ruleWriteAnswer = v.strictObject({
  ok: v.literal(true),
  rule: routingRule,
  egress: egressConfiguration,
});

export const egressDeleteAnswer = v.strictObject({
  ok: v.literal(true),
  egress: egressConfiguration,
});

/** The connection test (spec "Egress": a valid request is 200 even when the test fails). */
export const egressTestAnswer = v.strictObject({
  ok: v.boolean(),
  reachable: v.boolean(),
  outcome: v.picklist([
    "success",
    "slow",
    "blocked",
    "dns",
    "timeout",
    "tls",
    "proxy",
    "proxy_auth",
    "http_error",
    "network",
  ]),
  status: v.nullable(v.number()),
  target: v.picklist(["public", "source", "custom"]),
  proxy_id: v.nullable(v.string()),
  via_proxy: v.boolean(),
  reason: v.string(),
  rewrite: v.boolean(),
  final_url: v.string(),
  ttfb_ms: v.optional(v.number()),
  sample_bytes: v.optional(count),
  throughput_kbps: v.optional(v.number()),
  dur_ms: v.number(),
  error: v.optional(v.string()),
});

// ---- Probes (spec "Sessions, probes, previews")

const httpProbeFields = {
  ok: v.boolean(),
  status: v.number(),
  content_type: v.string(),
  final_url: v.string(),
  dur_ms: v.number(),
  /** Extensions "MPEG-TS ingress": what the first bytes are. */
  format: v.optional(v.picklist(["ts", "hls", "dash", "unknown"])),
  error: v.optional(v.string()),
};

const dashProbe = v.strictObject({
  ok: v.boolean(),
  dur_ms: v.number(),
  inspection: v.nullable(
    v.strictObject({
      native_supported: v.boolean(),
      suggested_engine: v.picklist(["auto", "native", "ffmpeg"]),
      reason: v.nullable(v.string()),
      encrypted: v.boolean(),
      kids: v.array(v.string()),
    }),
  ),
  error: v.optional(v.string()),
});

export const channelProbeAnswer = v.union([v.strictObject(httpProbeFields), dashProbe]);
export const sourceProbeAnswer = v.union([
  v.strictObject({ ...httpProbeFields, proxy_id: v.string() }),
  dashProbe,
]);

export const warmupAnswer = v.strictObject({ state: v.string() });

// ---- Guide (spec "Guide source")

/** The write body's fields plus whether the source is a built-in preset. */
export const guideSource = v.strictObject({
  id: v.string(),
  name: v.string(),
  url: v.string(),
  timezone: v.string(),
  proxy: v.string(),
  enabled: v.boolean(),
  preset: v.boolean(),
});

export const guideStatus = v.strictObject({
  source_id: v.string(),
  last_attempt: nullableTime,
  last_success: nullableTime,
  stale: v.boolean(),
  error: v.nullable(v.string()),
  channel_count: count,
  programme_count: count,
  available: v.boolean(),
  /** What the source's XMLTV says of itself: "not shown" by the spec. */
  metadata: v.unknown(),
});

export const guidePresets = v.strictObject({ presets: v.array(guideSource) });

export const guideSourceList = v.strictObject({
  sources: v.array(
    v.strictObject({
      source: guideSource,
      enabled: v.boolean(),
      revision,
      updated_at: nullableTime,
    }),
  ),
  statuses: v.array(guideStatus),
});

export const guideSourceWriteAnswer = v.strictObject({ ok: v.literal(true), source: guideSource });

/** `removed` for a stored source, `hidden` for a preset. */
export const guideSourceDeleteAnswer = v.strictObject({
  ok: v.literal(true),
  removed: v.boolean(),
  hidden: v.boolean(),
});

const matchReason = v.picklist(["exact_id", "exact_name", "lcn", "id_name", "fuzzy"]);

export const guideCandidate = v.strictObject({
  source_id: v.string(),
  epg_id: v.string(),
  display_name: v.string(),
  score: v.number(),
  reason: matchReason,
  present: v.boolean(),
});

export const guideMatch = v.strictObject({
  channel_id: v.string(),
  status: v.picklist(["matched", "stale", "unmatched"]),
  match: v.optional(
    v.strictObject({
      source_id: v.string(),
      epg_id: v.string(),
      display_name: v.string(),
      method: v.picklist(["epg_id", "epg_name", "name"]),
      reason: matchReason,
      score: v.number(),
      manual: v.boolean(),
      icon: v.string(),
    }),
  ),
  candidates: v.array(guideCandidate),
  logo_candidates: v.array(v.strictObject({ source: v.string(), url: v.string() })),
});

export const guideMatches = v.strictObject({ matches: v.array(guideMatch) });

export const guideRefreshAnswer = v.strictObject({
  ok: v.boolean(),
  statuses: v.array(guideStatus),
});

// ---- M3U import (spec "Import and export"; docs/m3u.md)

export const importEntry = v.strictObject({
  line: v.number(),
  action: v.picklist(["create", "update", "skip", "fallback"]),
  id: v.nullable(v.string()),
  title: v.string(),
  url: v.string(),
  ingress: v.optional(v.string()),
  guide_number: v.optional(v.string()),
  guide_number_taken_by: v.optional(v.string()),
  reason: v.optional(v.string()),
  kept: v.optional(v.record(v.string(), v.string())),
  revision: v.optional(revision),
  dropped_secrets: v.optional(v.array(v.string())),
  fallback_index: v.optional(count),
  fallbacks: v.optional(count),
});

/**
 * `{preview, count, created, updated, skipped, entries}` plus `revisions` (to send back
 * with `apply`), `x_tvg_url`, and `fallbacks` under `duplicates: "fallbacks"`.
 */
export const importAnswer = v.strictObject({
  preview: v.boolean(),
  count,
  created: count,
  updated: count,
  skipped: count,
  fallbacks: v.optional(count),
  entries: v.array(importEntry),
  revisions: v.record(v.string(), revision),
  x_tvg_url: v.string(),
});

// ---- M3U provider sources (extensions.md "M3U provider sources")

export const m3uSource = v.strictObject({
  id: v.string(),
  name: v.string(),
  url: v.string(),
  enabled: v.boolean(),
  refresh_interval_min: count,
  upstream: v.string(),
  group_filter: v.array(v.string()),
  remove_missing: v.boolean(),
  revision,
  updated_at: nullableTime,
});

export const m3uSourceStatus = v.strictObject({
  source_id: v.string(),
  last_attempt: nullableTime,
  last_success: nullableTime,
  error: v.nullable(v.string()),
  created: count,
  updated: count,
  disabled: count,
  skipped: count,
});

export const m3uSourceList = v.strictObject({ sources: v.array(m3uSource) });
export const m3uSourceAnswer = v.strictObject({ source: m3uSource });
export const m3uSourceStatuses = v.strictObject({ statuses: v.array(m3uSourceStatus) });
export const m3uSourceRefreshAnswer = v.strictObject({ ok: v.boolean(), status: m3uSourceStatus });

// ---- HDHomeRun device (extensions.md "HDHomeRun"): the field names HDHomeRun clients read

export const hdhrDiscover = v.strictObject({
  FriendlyName: v.string(),
  Manufacturer: v.string(),
  ModelNumber: v.string(),
  FirmwareName: v.string(),
  FirmwareVersion: v.string(),
  DeviceID: v.string(),
  DeviceAuth: v.string(),
  BaseURL: v.string(),
  LineupURL: v.string(),
  TunerCount: count,
});

export const hdhrLineup = v.array(
  v.strictObject({
    GuideNumber: v.string(),
    GuideName: v.string(),
    URL: v.string(),
    HD: v.number(),
  }),
);

export const hdhrLineupStatus = v.strictObject({
  ScanInProgress: v.number(),
  ScanPossible: v.number(),
  Source: v.string(),
  SourceList: v.array(v.string()),
});

// ---- Xtream's `player_api.php` (extensions.md "Xtream Codes output"): the shapes Xtream apps read

const xtreamLogin = v.strictObject({
  user_info: v.strictObject({
    username: v.nullable(v.string()),
    password: v.string(),
    message: v.string(),
    auth: v.literal(1),
    status: v.string(),
    /** Epoch seconds as a string, or null without expiry. */
    exp_date: v.nullable(v.string()),
    is_trial: v.string(),
    active_cons: v.string(),
    created_at: v.string(),
    max_connections: v.string(),
    allowed_output_formats: v.array(v.string()),
  }),
  server_info: v.strictObject({
    url: v.string(),
    port: v.string(),
    https_port: v.string(),
    server_protocol: v.string(),
    rtmp_port: v.string(),
    timezone: v.string(),
    timestamp_now: v.number(),
    time_now: v.string(),
    process: v.boolean(),
  }),
});

/** What Xtream apps read as a refused login (answered 200: they do not look at the status). */
const xtreamRefused = v.strictObject({ user_info: v.strictObject({ auth: v.literal(0) }) });

const xtreamCategory = v.strictObject({
  category_id: v.string(),
  category_name: v.string(),
  parent_id: v.number(),
});

const xtreamStream = v.strictObject({
  num: v.nullable(v.number()),
  name: v.string(),
  stream_type: v.literal("live"),
  stream_id: v.number(),
  stream_icon: v.string(),
  epg_channel_id: v.string(),
  added: v.string(),
  category_id: v.string(),
  category_ids: v.array(v.number()),
  custom_sid: v.string(),
  tv_archive: v.number(),
  direct_source: v.string(),
  tv_archive_duration: v.number(),
});

/** `get_short_epg` (and, with `now_playing` and `has_archive`, `get_simple_data_table`). */
const xtreamEpg = v.strictObject({
  epg_listings: v.array(
    v.strictObject({
      id: v.string(),
      epg_id: v.string(),
      title: v.string(),
      lang: v.string(),
      start: v.string(),
      end: v.string(),
      description: v.string(),
      channel_id: v.string(),
      start_timestamp: v.string(),
      stop_timestamp: v.string(),
      now_playing: v.optional(v.number()),
      has_archive: v.optional(v.number()),
    }),
  ),
});

/**
 * `player_api.php`: the login's `{user_info, server_info}` (no or an unknown action), a
 * refused login, the live categories or streams (another list action: `[]`), or the EPG.
 */
export const xtreamPlayerApi = v.union([
  xtreamLogin,
  xtreamRefused,
  xtreamEpg,
  v.array(v.union([xtreamCategory, xtreamStream])),
]);
