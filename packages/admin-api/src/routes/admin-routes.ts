import type { RouteFamily } from "@svc/core/route-table";
import type { Hono } from "hono";
import type { AdminContext } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { apiTokenRoutes, createApiTokenRoutes } from "./api-tokens.js";
import { channelRoutes, createChannelRoutes } from "./channels.js";
import { createEgressRoutes, egressRoutes } from "./egress.js";
import { createGuidePublicRoutes, guidePublicRoutes } from "./guide-public.js";
import { createGuideSourceRoutes, guideSourceRoutes } from "./guide-sources.js";
import { createM3uRoutes, m3uRoutes } from "./m3u.js";
import { createM3uSourceRoutes, m3uSourceRoutes } from "./m3u-sources.js";
import { createMeRoutes, meRoutes } from "./me.js";
import { createPlaybackKeyRoutes, playbackKeyRoutes } from "./playback-keys.js";
import { createProbeRoutes, probeRoutes } from "./probes.js";
import { createReadRoutes, readRoutes } from "./read-routes.js";
import { createSessionRoutes, sessionRoutes } from "./sessions.js";
import { createSettingsRoutes, settingsRoutes } from "./settings.js";

/** A route family of the admin API with the factory of its sub-app. */
export interface AdminRouteFamily {
  readonly routes: RouteFamily;
  readonly create: (ctx: AdminContext) => Hono<AdminEnv>;
}

/**
 * The families `createAdminApp` mounts behind the credential gate, each at its
 * base path. A new family is added here and nowhere else: the gate, the API-token
 * registry and the OpenAPI document read its declarations.
 */
export const ADMIN_ROUTE_FAMILIES: readonly AdminRouteFamily[] = [
  { routes: meRoutes, create: createMeRoutes },
  { routes: readRoutes, create: createReadRoutes },
  { routes: channelRoutes, create: createChannelRoutes },
  { routes: apiTokenRoutes, create: createApiTokenRoutes },
  { routes: playbackKeyRoutes, create: createPlaybackKeyRoutes },
  { routes: settingsRoutes, create: createSettingsRoutes },
  { routes: sessionRoutes, create: createSessionRoutes },
  { routes: probeRoutes, create: createProbeRoutes },
  { routes: egressRoutes, create: createEgressRoutes },
  { routes: m3uRoutes, create: createM3uRoutes },
  { routes: guideSourceRoutes, create: createGuideSourceRoutes },
  { routes: guidePublicRoutes, create: createGuidePublicRoutes },
  { routes: m3uSourceRoutes, create: createM3uSourceRoutes },
];
