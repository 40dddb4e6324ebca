/** The one description of the state database: every table, for drizzle and drizzle-kit. */
export { apiTokenAudit } from "./api-token-audit.js";
export { apiTokens } from "./api-tokens.js";
export { channels } from "./channels.js";
export { credentialOverrides } from "./credential-overrides.js";
export { egressConfig } from "./egress-config.js";
export { guideChannels } from "./guide-channels.js";
export { guideProgrammes } from "./guide-programmes.js";
export { guideSourceStatus } from "./guide-source-status.js";
export { guideSources } from "./guide-sources.js";
export { m3uSourceStatus } from "./m3u-source-status.js";
export { m3uSources } from "./m3u-sources.js";
export { playbackAccessLog } from "./playback-access-log.js";
export { playbackKeys } from "./playback-keys.js";
export { settings } from "./settings.js";
export { stateMarkers } from "./state-markers.js";
