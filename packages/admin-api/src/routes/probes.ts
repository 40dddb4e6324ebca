import { GatewayError } from "@svc/core/errors";
import { readJsonBody } from "@svc/core/http";
import { withProxyId } from "@svc/playback/probes";
import { Hono } from "hono";
import type { AdminContext } from "../admin-context.js";
import type { AdminEnv } from "../env.js";
import { draftChannel, existingChannel } from "../services/channels/write.js";
import { probeChannel } from "../services/probes/probe-channel.js";
import { sourceProbeBody } from "../services/probes/source-probe-body.js";
import { bindingOfChannel } from "../storage/channels/stored-channel.js";

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
    const { channel, newProfile } = draftChannel({ egress: ctx.egressConfig }, ctx.channels, {
      ...body,
      id: body.id ?? "",
    });
    // The draft is not stored: its binding (or its unsaved inline profile) is handed over.
    const route =
      newProfile !== undefined
        ? { profile: { ...newProfile, disabled: false } }
        : { binding: bindingOfChannel(channel) };
    const probe = await probeChannel(ctx, channel, route);
    if (probe.refusal !== undefined) throw new GatewayError("forbidden", probe.refusal);
    // Spec: the non-DASH answer adds the `proxy_id` the route chose.
    return c.json(
      probe.ingress === "dash"
        ? probe.result
        : withProxyId(probe.result, probe.proxyId ?? "direct"),
    );
  });

  return app;
}
