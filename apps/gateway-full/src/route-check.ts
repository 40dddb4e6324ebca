import { normalizeRoutePath, ROUTE_TABLE, type RouteSpec } from "@svc/core/route-table";

/** What an app exposes about its routes (hono's `app.routes`). */
export interface RouteListing {
  readonly routes: readonly { readonly method: string; readonly path: string }[];
}

/** Method and path (`{param}` form) of every handler route an app registered; middleware excluded. */
export function registeredRoutes(app: RouteListing): { method: string; path: string }[] {
  const seen = new Map<string, { method: string; path: string }>();
  for (const r of app.routes) {
    if (r.method === "ALL") continue;
    const path = normalizeRoutePath(r.path);
    seen.set(`${r.method} ${path}`, { method: r.method, path });
  }
  return [...seen.values()];
}

/**
 * Refuses to start when a registered route is missing from the spec's route
 * table: the credential gate reads the table, so an unlisted route would run
 * without its credential check.
 */
export function assertRoutesInTable(
  app: RouteListing,
  table: readonly RouteSpec[] = ROUTE_TABLE,
): void {
  const listed = new Set(table.map((r) => `${r.method} ${r.path}`));
  const missing = registeredRoutes(app).filter((r) => !listed.has(`${r.method} ${r.path}`));
  if (missing.length > 0) {
    throw new Error(
      `routes missing from the route table: ${missing.map((r) => `${r.method} ${r.path}`).join(", ")}`,
    );
  }
}
