import type { AppEnv } from "@svc/core/http";
import { Hono } from "hono";

/** Name, version and commit of the running build, as `GET /` reports them. */
export interface ServiceInfo {
  readonly name: string;
  readonly version: string;
  readonly commit: string;
}

/**
 * `GET /` (spec "Public"): a browser (`Accept` containing `text/html`) is sent
 * to the console with 302; anything else gets `{name, version, commit, admin}`.
 */
export function createServiceInfoRoute(info: ServiceInfo): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const body = { name: info.name, version: info.version, commit: info.commit, admin: "/admin" };
  app.get("/", (c) => {
    if ((c.req.header("accept") ?? "").includes("text/html")) return c.redirect("/admin", 302);
    return c.json(body);
  });
  return app;
}
