import type { AppEnv } from "@svc/core/http";
import { defineRoutes, PUBLIC, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import { serviceInfoAnswer } from "./answers.js";

/** Name, version and commit of the running build, as `GET /` reports them. */
export interface ServiceInfo {
  readonly name: string;
  readonly version: string;
  readonly commit: string;
}

export const serviceInfoRoutes = defineRoutes("/", {
  info: {
    method: "GET",
    path: "/",
    access: PUBLIC,
    summary: "Service info, or 302 to /admin for browsers",
    tag: "public",
    success: [200, "`{name, version, commit, admin}`", serviceInfoAnswer],
  },
});

/**
 * `GET /` (spec "Public"): a browser (`Accept` containing `text/html`) is sent
 * to the console with 302; anything else gets `{name, version, commit, admin}`.
 */
export function createServiceInfoRoute(info: ServiceInfo): Hono<AppEnv> {
  const body = { name: info.name, version: info.version, commit: info.commit, admin: "/admin" };
  return routesOf(serviceInfoRoutes, {
    info: (c) => {
      if ((c.req.header("accept") ?? "").includes("text/html")) return c.redirect("/admin", 302);
      return c.json(body);
    },
  });
}
