import { GatewayError } from "@svc/core/errors";
import { readJsonBody } from "@svc/core/http";
import { withProxyId } from "@svc/playback/probes";
import { Hono } from "hono";
import type { AdminContext } from "../admin-context.js";
import type { AdminEnv } from "../env.js";
import { draftChannel, existingChannel } from "../services/channels/write.js";
import { probeChannel } from "../services/probes/probe-channel.js";
import { sourceProbeBody } from "../services/probes/source-probe-body.js";

/**
 * The route a source probe reports. The egress has no proxy transport yet, so every request,
 * whatever `egress` binding the body names (validated like a channel write), goes direct, and
 * the result says so rather than naming a profile that was not used (docs/admin-api.md "Probes").
 */
const ROUTE_USED = "direct";

/**
 * Probes (spec "Sessions, probes, previews"; scope `refresh`). Both answer 200 with the probe
 * result when the source was tried, `ok: false` when it failed. A guard refusal is a result for
 * a stored channel, but 403 `forbidden` for a source probe, whose caller chose the target.
 */
export function createProbeRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  app.post("/v1/admin/channels/:id/probe", async (c) => {
    const channel = existingChannel(ctx.channels, c.req.param("id"));
    const probe = await probeChannel(ctx, channel);
    return c.json(probe.result);
  });

  app.post("/v1/admin/source-probes", async (c) => {
    const body = await readJsonBody(c, sourceProbeBody);
    const draft = draftChannel(ctx.config, ctx.channels, { ...body, id: body.id ?? "" });
    const probe = await probeChannel(ctx, draft);
    if (probe.refusal !== undefined) throw new GatewayError("forbidden", probe.refusal);
    return c.json(probe.ingress === "dash" ? probe.result : withProxyId(probe.result, ROUTE_USED));
  });

  return app;
}
