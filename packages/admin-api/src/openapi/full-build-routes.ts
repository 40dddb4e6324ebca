import { loginRoutes } from "@svc/core/auth";
import { healthRoutes } from "@svc/core/http";
import { familyRows, type RouteFamily, type RouteRow } from "@svc/core/route-table";
import { playRoutes } from "@svc/playback/play";
import { playlistRoutes } from "@svc/playback/routes";
import { ADMIN_ROUTE_FAMILIES } from "../routes/admin-routes.js";
import { consoleRoutes } from "../routes/console.js";
import { hdhomerunRoutes } from "../routes/hdhomerun.js";
import { keyPlaylistRoutes, keyPlayRoutes } from "../routes/key-playback.js";
import { metricsRoutes } from "../routes/metrics.js";
import { serviceInfoRoutes } from "../routes/service-info.js";
import { xtreamPlayRoutes, xtreamRoutes } from "../routes/xtream.js";

/**
 * Every route family the full build mounts (apps/gateway-full), for a document
 * built without a running app (the console's generated types). The running
 * gateway serves the document of the routes it registered instead, and
 * `tests/src/full/route-table.test.ts` checks the two are the same.
 */
const FULL_BUILD_FAMILIES: readonly RouteFamily[] = [
  serviceInfoRoutes,
  healthRoutes,
  metricsRoutes,
  consoleRoutes,
  loginRoutes,
  ...ADMIN_ROUTE_FAMILIES.map((f) => f.routes),
  playlistRoutes,
  keyPlaylistRoutes,
  playRoutes,
  keyPlayRoutes,
  hdhomerunRoutes,
  xtreamRoutes,
  xtreamPlayRoutes,
];

/** The full build's route table with the given extension switches (default: all off). */
export function fullBuildRoutes(switches: Parameters<typeof familyRows>[1] = {}): RouteRow[] {
  return FULL_BUILD_FAMILIES.flatMap((f) => familyRows(f, switches));
}
