import * as tables from "../tables/index.js";
import { pick } from "../tables/twin-table.js";

/**
 * The state database in PostgreSQL's types (`server.database_url`, operator contract "Cluster
 * mode"): `bigint` epochs, `boolean` flags, `jsonb` documents. What each table holds: `../tables/`.
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
} = pick(tables, "pg");
