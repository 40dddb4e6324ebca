/**
 * The one description of the state database: every table, its columns written once for
 * SQLite (`../schema/`) and PostgreSQL (`../schema-pg/`), one table per file.
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
