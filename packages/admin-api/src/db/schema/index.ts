import * as tables from "../tables/index.js";
import { pick } from "../tables/twin-table.js";

/**
 * The state database in SQLite's types (integer epochs and flags, JSON as text), for drizzle and
 * drizzle-kit. What each table holds: `../tables/`.
 */
export const {
  apiTokenAudit,
  apiTokens,
  channelLeases,
  channels,
  credentialOverrides,
  egressConfig,
  guideChannels,
  guideProgrammes,
  guideSourceStatus,
  guideSources,
  loginWindows,
  m3uSourceStatus,
  m3uSources,
  playbackAccessLog,
  playbackKeys,
  settings,
  stateMarkers,
  stateVersions,
  viewerSeats,
} = pick(tables, "sqlite");
