import { loginBody } from "@svc/core/auth";
import type { ErrorCode } from "@svc/core/errors";
import type { GenericSchema } from "valibot";
import { apiTokenCreateBody, apiTokenUpdateBody } from "../routes/api-tokens.js";
import { reorderBody } from "../routes/channels.js";
import { m3uImportBody } from "../routes/m3u.js";
import { credentialsBody } from "../routes/me.js";
import { playbackKeyCreateBody } from "../routes/playback-keys.js";
import { settingsWriteBody } from "../routes/settings.js";
import { channelWriteBody } from "../services/channels/write-body.js";
import { testBody } from "../services/egress/connection-test.js";
import { documentBody, profileBody, ruleBody } from "../services/egress/write-bodies.js";
import { sourceProbeBody } from "../services/probes/source-probe-body.js";

/** What the OpenAPI document says about one route beyond the route table. */
export interface RouteDoc {
  readonly summary: string;
  readonly tag: string;
  /** The valibot schema the route validates its JSON body with. */
  readonly body?: GenericSchema;
  /** Success status and what it carries. */
  readonly success: readonly [status: number, description: string, contentType?: string];
  /** Error codes this route answers besides the credential gate's. */
  readonly errors?: readonly ErrorCode[];
  /** `If-Match` (spec "Concurrency headers"). */
  readonly ifMatch?: "required" | "optional";
  readonly query?: readonly { name: string; description: string; schema: object }[];
}

const m3u = "application/vnd.apple.mpegurl";
const play = ["not_found", "upstream_error", "unavailable", "not_ready"] as const;

/**
 * One entry per row of the route table (`METHOD path`). A test fails when a
 * route of the table has no entry here, so the document cannot miss one.
 */
export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = {
  "GET /": {
    summary: "Service info, or 302 to /admin for browsers",
    tag: "public",
    success: [200, "`{name, version, commit, admin}`"],
  },
  "GET /healthz": { summary: "Liveness", tag: "public", success: [200, "`{status: ok}`"] },
  "GET /readyz": {
    summary: "Readiness",
    tag: "public",
    success: [200, "`{status: ready}`"],
    errors: ["not_ready"],
  },
  "GET /metrics": {
    summary: "Prometheus metrics",
    tag: "public",
    success: [200, "Prometheus text format 0.0.4", "text/plain"],
    errors: ["not_found"],
  },
  "GET /admin": {
    summary: "Console shell",
    tag: "console",
    success: [200, "The console's HTML shell (no-store)", "text/html"],
  },
  "GET /admin/*": {
    summary: "Console assets and this document",
    tag: "console",
    success: [
      200,
      "Hashed asset (immutable, gzip/br, ETag); 304 on If-None-Match",
      "application/octet-stream",
    ],
    errors: ["not_found"],
  },
  "POST /v1/auth/login": {
    summary: "Log in",
    tag: "auth",
    body: loginBody,
    success: [200, "`{token, expires_at, username, role}`"],
    errors: ["invalid_request", "too_many_requests"],
  },
  "GET /v1/epg.xml": {
    summary: "XMLTV guide",
    tag: "guide",
    success: [200, "XMLTV", "application/xml"],
  },
  "GET /v1/epg.xml.gz": {
    summary: "XMLTV guide, gzip",
    tag: "guide",
    success: [200, "gzip of the XMLTV", "application/gzip"],
  },
  "GET /v1/logo/{id}": {
    summary: "Channel logo",
    tag: "guide",
    success: [200, "Image bytes", "image/*"],
    errors: ["not_found", "upstream_error"],
  },
  "GET /v1/me": {
    summary: "Who am I",
    tag: "auth",
    success: [200, "`{username, role, channel_ids, credential, scopes}`"],
  },
  "GET /v1/channels": {
    summary: "Channel list (scoped)",
    tag: "channels",
    success: [200, "`{channels}`"],
  },
  "GET /v1/status": {
    summary: "Counters and runtime sessions",
    tag: "status",
    success: [
      200,
      "`{uptime_sec, bytes_in, bytes_out, requests, errors, goroutines, session_count, sessions}`",
    ],
  },
  "GET /v1/playlist.m3u": { summary: "M3U playlist", tag: "playback", success: [200, "M3U", m3u] },
  "GET /v1/play/{id}/index.m3u8": {
    summary: "Channel entry playlist",
    tag: "playback",
    success: [200, "HLS playlist", m3u],
    errors: [...play],
  },
  "GET /v1/play/{id}/live/{file}": {
    summary: "Locally packaged output",
    tag: "playback",
    success: [200, "Playlist, segment or part", "application/octet-stream"],
    errors: [...play],
  },
  "GET /v1/play/{id}/u/{upstream}": {
    summary: "Signed upstream proxy",
    tag: "playback",
    success: [200, "Upstream bytes (playlists rewritten)", "application/octet-stream"],
    errors: [...play],
  },
  // Extensions "MPEG-TS output" (extensions.ts_output): documented only when switched on.
  "GET /v1/play/{id}/stream.ts": {
    summary: "Continuous MPEG-TS of the channel (extension ts_output)",
    tag: "playback",
    success: [200, "MPEG-TS stream", "video/mp2t"],
    errors: [...play],
  },
  "GET /p/{token}/play/{id}/stream.ts": {
    summary: "Continuous MPEG-TS (playback key, extension ts_output)",
    tag: "playback",
    success: [200, "MPEG-TS stream", "video/mp2t"],
    errors: [...play],
  },
  "GET /p/{token}/playlist.m3u": {
    summary: "Playlist of a playback key",
    tag: "playback",
    success: [200, "M3U", m3u],
  },
  "GET /p/{token}/play/{id}/index.m3u8": {
    summary: "Entry playlist (playback key)",
    tag: "playback",
    success: [200, "HLS playlist", m3u],
    errors: [...play],
  },
  "GET /p/{token}/play/{id}/live/{file}": {
    summary: "Packaged output (playback key)",
    tag: "playback",
    success: [200, "Playlist, segment or part", "application/octet-stream"],
    errors: [...play],
  },
  "GET /p/{token}/play/{id}/u/{upstream}": {
    summary: "Signed upstream proxy (playback key)",
    tag: "playback",
    success: [200, "Upstream bytes", "application/octet-stream"],
    errors: [...play],
  },
  "PUT /v1/me/credentials": {
    summary: "Change username or password",
    tag: "auth",
    body: credentialsBody,
    success: [200, "Like login, with a fresh token"],
    errors: ["invalid_request", "current_password_invalid", "username_taken", "too_many_requests"],
  },
  "GET /v1/admin/api-tokens": {
    summary: "List API tokens",
    tag: "api-tokens",
    success: [200, "`{tokens, available_scopes}`"],
  },
  "POST /v1/admin/api-tokens": {
    summary: "Create an API token",
    tag: "api-tokens",
    body: apiTokenCreateBody,
    success: [201, "`{token, credential, warning}`; plaintext shown once"],
    errors: ["invalid_request"],
  },
  "PUT /v1/admin/api-tokens/{id}": {
    summary: "Update an API token",
    tag: "api-tokens",
    body: apiTokenUpdateBody,
    success: [200, "`{credential}`"],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
  },
  "POST /v1/admin/api-tokens/{id}/rotate": {
    summary: "Rotate an API token",
    tag: "api-tokens",
    success: [201, "`{token, credential, warning}`"],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  "POST /v1/admin/api-tokens/{id}/revoke": {
    summary: "Revoke an API token",
    tag: "api-tokens",
    success: [200, "`{ok: true}`"],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  "DELETE /v1/admin/api-tokens/{id}": {
    summary: "Delete an API token",
    tag: "api-tokens",
    success: [204, "No body"],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  "GET /v1/admin/api-token-logs": {
    summary: "API token audit log (100 most recent)",
    tag: "api-tokens",
    success: [200, "`{logs}`"],
  },
  "GET /v1/admin/channels": {
    summary: "List channels (incl. disabled)",
    tag: "channels",
    success: [200, "`{channels}`"],
  },
  "GET /v1/admin/channels/{id}": {
    summary: "Channel detail",
    tag: "channels",
    success: [200, "`{channel, egress_binding, effective_user_agent, revision, updated_at}`; ETag"],
    errors: ["not_found"],
  },
  "POST /v1/admin/channels": {
    summary: "Create a channel",
    tag: "channels",
    body: channelWriteBody,
    success: [201, "`{ok, id, egress_profile_id}`"],
    errors: ["invalid_request", "conflict"],
  },
  "PUT /v1/admin/channels/{id}": {
    summary: "Replace a channel",
    tag: "channels",
    body: channelWriteBody,
    success: [
      200,
      "`{ok, id, egress_profile_id}`, plus `dropped_secrets` when the source moved to another origin and stored secrets were left behind",
    ],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "optional",
  },
  "DELETE /v1/admin/channels/{id}": {
    summary: "Delete a channel",
    tag: "channels",
    success: [200, "`{ok, id}`"],
    errors: ["not_found", "conflict"],
    ifMatch: "optional",
  },
  "POST /v1/admin/channels/enable-all": {
    summary: "Enable every channel",
    tag: "channels",
    success: [200, "`{ok, changed, channel_ids}`"],
  },
  "POST /v1/admin/channels/disable-all": {
    summary: "Disable every channel",
    tag: "channels",
    success: [200, "`{ok, changed, channel_ids}`"],
  },
  "PUT /v1/admin/channels/reorder": {
    summary: "Reorder channels",
    tag: "channels",
    body: reorderBody,
    success: [200, "`{ok, changed, channel_ids, revisions}`"],
    errors: ["invalid_request", "conflict"],
  },
  "POST /v1/admin/channels/{id}/probe": {
    summary: "Probe a stored channel's source",
    tag: "sessions",
    success: [200, "`{ok, status, content_type, final_url, dur_ms}` or `{ok, dur_ms, inspection}`"],
    errors: ["invalid_request", "not_found", "upstream_error"],
  },
  "POST /v1/admin/source-probes": {
    summary: "Probe an unsaved channel",
    tag: "sessions",
    body: sourceProbeBody,
    success: [200, "Probe result (+ `proxy_id`)"],
    errors: ["invalid_request"],
  },
  "POST /v1/admin/channels/{id}/warmup": {
    summary: "Start a packaging session",
    tag: "sessions",
    success: [202, "`{state}`"],
    errors: ["not_found", "conflict"],
  },
  "POST /v1/admin/channels/{id}/preview": {
    summary: "Issue a 5-minute preview URL",
    tag: "sessions",
    success: [201, "`{play_url, expires_at}`"],
    errors: ["not_found"],
  },
  "DELETE /v1/admin/sessions/{id}": {
    summary: "Stop a runtime session",
    tag: "sessions",
    success: [204, "No body"],
    errors: ["not_found"],
  },
  "GET /v1/admin/epg/presets": {
    summary: "Built-in guide presets",
    tag: "guide",
    success: [200, "`{presets}`"],
  },
  "GET /v1/admin/epg/sources": {
    summary: "Guide sources and statuses",
    tag: "guide",
    success: [200, "`{sources, statuses}`"],
  },
  "POST /v1/admin/epg/sources": {
    summary: "Create a guide source",
    tag: "guide",
    success: [201, "`{ok, source}`"],
    errors: ["invalid_request", "conflict"],
  },
  "PUT /v1/admin/epg/sources/{id}": {
    summary: "Update a guide source (If-Match required; missing: 428)",
    tag: "guide",
    success: [200, "`{ok, source}`"],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
  },
  "DELETE /v1/admin/epg/sources/{id}": {
    summary: "Delete (or hide a preset) guide source",
    tag: "guide",
    success: [200, "Deleted"],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  "GET /v1/admin/epg/matches": {
    summary: "Channel ↔ guide matches",
    tag: "guide",
    success: [
      200,
      "`{matches: [{channel_id, status, match?, candidates, logo_candidates}]}`; `match` and each candidate carry `reason` (exact_id | exact_name | lcn | id_name | fuzzy) and `score`",
    ],
  },
  "POST /v1/admin/epg/refresh": {
    summary: "Refresh every enabled guide source",
    tag: "guide",
    success: [200, "`{ok, statuses}`"],
    errors: ["conflict"],
  },
  "GET /v1/admin/upstreams": {
    summary: "Configured upstreams",
    tag: "channels",
    success: [200, "`{upstreams}`"],
  },
  "GET /v1/admin/access-tokens": {
    summary: "List playback keys",
    tag: "playback-keys",
    success: [200, "`{access_tokens}`"],
  },
  "POST /v1/admin/access-tokens": {
    summary: "Create a playback key",
    tag: "playback-keys",
    body: playbackKeyCreateBody,
    success: [
      201,
      "`{id, name, token, token_prefix, scope, playlist_url, created_at, expires_at, warning}`",
    ],
    errors: ["invalid_request"],
  },
  "POST /v1/admin/access-tokens/{id}/revoke": {
    summary: "Revoke a playback key",
    tag: "playback-keys",
    success: [200, "`{ok: true}`"],
    errors: ["not_found", "conflict"],
    ifMatch: "optional",
  },
  "DELETE /v1/admin/access-tokens/{id}": {
    summary: "Delete a playback key",
    tag: "playback-keys",
    success: [200, "`{ok: true}`"],
    errors: ["not_found", "conflict"],
    ifMatch: "optional",
  },
  "GET /v1/admin/access-logs": {
    summary: "Playback access log",
    tag: "playback-keys",
    success: [200, "`{access_logs}`"],
    errors: ["invalid_request"],
    query: [
      {
        name: "limit",
        description: "1..1000, default 100",
        schema: { type: "integer", minimum: 1, maximum: 1000 },
      },
      { name: "token_id", description: "only this playback key", schema: { type: "string" } },
    ],
  },
  "DELETE /v1/admin/access-logs": {
    summary: "Clear the access log",
    tag: "playback-keys",
    success: [200, "`{deleted}`"],
  },
  "GET /v1/admin/settings": {
    summary: "Settings",
    tag: "settings",
    success: [200, "The settings resource; ETag"],
  },
  "PUT /v1/admin/settings": {
    summary: "Update runtime settings",
    tag: "settings",
    body: settingsWriteBody,
    success: [200, "The settings resource"],
    errors: ["invalid_request", "conflict"],
    ifMatch: "required",
  },
  "POST /v1/admin/import/m3u": {
    summary: "Import an M3U playlist (preview or apply)",
    tag: "m3u",
    body: m3uImportBody,
    success: [
      200,
      "`{preview, count, created, updated, skipped, entries}`; an update entry that moves a source to another origin carries `dropped_secrets`",
    ],
    errors: ["invalid_request", "conflict"],
  },
  "POST /v1/admin/exports/m3u": {
    summary: "Export an M3U playlist with a new playback key",
    tag: "m3u",
    success: [201, "M3U file (attachment svc-playlist.m3u)", m3u],
  },
  "GET /v1/admin/egress": {
    summary: "Egress configuration",
    tag: "egress",
    success: [200, "The egress configuration resource"],
  },
  "PUT /v1/admin/egress": {
    summary: "Replace the egress configuration",
    tag: "egress",
    body: documentBody,
    success: [200, "The egress configuration resource"],
    errors: ["invalid_request", "conflict"],
    ifMatch: "required",
  },
  "POST /v1/admin/egress/proxies": {
    summary: "Add a proxy profile",
    tag: "egress",
    body: profileBody,
    success: [201, "The egress configuration resource"],
    errors: ["invalid_request", "conflict"],
    ifMatch: "required",
  },
  "PUT /v1/admin/egress/proxies/{id}": {
    summary: "Update a proxy profile",
    tag: "egress",
    body: profileBody,
    success: [200, "The egress configuration resource"],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
  },
  "DELETE /v1/admin/egress/proxies/{id}": {
    summary: "Delete a proxy profile",
    tag: "egress",
    success: [200, "The egress configuration resource"],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  "POST /v1/admin/egress/rules": {
    summary: "Add a routing rule",
    tag: "egress",
    body: ruleBody,
    success: [201, "The egress configuration resource"],
    errors: ["invalid_request", "conflict"],
    ifMatch: "required",
  },
  "PUT /v1/admin/egress/rules/{id}": {
    summary: "Update a routing rule",
    tag: "egress",
    body: ruleBody,
    success: [200, "The egress configuration resource"],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
  },
  "DELETE /v1/admin/egress/rules/{id}": {
    summary: "Delete a routing rule",
    tag: "egress",
    success: [200, "The egress configuration resource"],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  "POST /v1/admin/egress/test": {
    summary: "Connection test",
    tag: "egress",
    body: testBody,
    success: [
      200,
      "`{ok, reachable, outcome, …}` (200 even when connectivity fails; a refused destination or unsaved proxy address is 403)",
    ],
    errors: ["invalid_request", "forbidden"],
  },
};
