/**
 * The PostgreSQL description of the state database (`server.database_url`,
 * operator contract "Cluster mode"), one table per file named as the SQLite
 * files of `../schema/`: the same tables, columns and indexes in PostgreSQL's
 * types (epoch milliseconds as `bigint`, flags as `boolean`, JSON documents as
 * `jsonb`), plus the cluster-only tables `state_versions`, `channel_leases`,
 * `viewer_seats` and `login_windows`.
 */
export { apiTokenAudit } from "./api-token-audit.js";
export { apiTokens } from "./api-tokens.js";
export { channelLeases } from "./channel-leases.js";
export { channels } from "./channels.js";
export { credentialOverrides } from "./credential-overrides.js";
export { egressConfig } from "./egress-config.js";
export { guideChannels } from "./guide-channels.js";
export { guideProgrammes } from "./guide-programmes.js";
export { guideSourceStatus } from "./guide-source-status.js";
export { guideSources } from "./guide-sources.js";
export { loginWindows } from "./login-windows.js";
export { m3uSourceStatus } from "./m3u-source-status.js";
export { m3uSources } from "./m3u-sources.js";
export { playbackAccessLog } from "./playback-access-log.js";
export { playbackKeys } from "./playback-keys.js";
export { settings } from "./settings.js";
export { stateMarkers } from "./state-markers.js";
export { stateVersions } from "./state-versions.js";
export { viewerSeats } from "./viewer-seats.js";
