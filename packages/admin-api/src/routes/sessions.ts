import { GatewayError } from "@svc/core/errors";
import { Hono } from "hono";
import type { AdminContext } from "../admin-context.js";
import type { AdminEnv } from "../env.js";

/**
 * Session control (spec "Sessions, probes, previews"; scope `refresh`):
 * `POST /v1/admin/channels/{id}/warmup` starts a channel's packaging session
 * (202 `{state}`), `DELETE /v1/admin/sessions/{id}` stops it (204; 404 when none ran).
 */
export function createSessionRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  app.post("/v1/admin/channels/:id/warmup", async (c) => {
    const result = await ctx.sessions.warmup(c.req.param("id"));
    if (!result.ok) throw new GatewayError(result.code, result.message);
    return c.json({ state: result.state }, 202);
  });

  app.delete("/v1/admin/sessions/:id", async (c) => {
    if (!(await ctx.sessions.stop(c.req.param("id")))) {
      throw new GatewayError("not_found", "no running session for this channel");
    }
    return c.body(null, 204);
  });

  return app;
}
