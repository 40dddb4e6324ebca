import { GatewayError } from "@svc/core/errors";
import { readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import { withProxyId } from "@svc/playback/probes";
import type { Hono } from "hono";
import type { AdminContext } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
import { draftChannel, existingChannel } from "../services/channels/write.js";
import { probeChannel } from "../services/probes/probe-channel.js";
import { sourceProbeBody } from "../services/probes/source-probe-body.js";
import { bindingOfChannel } from "../storage/channels/stored-channel.js";
import { channelProbeAnswer, sourceProbeAnswer } from "./answers.js";

/**
 * Probes (spec "Sessions, probes, previews"; scope `refresh`). Both answer 200 with the probe
 * result when the source was tried, `ok: false` when it failed. A guard refusal is a result for
 * a stored channel, but 403 `forbidden` for a source probe, whose caller chose the target.
 */
export const probeRoutes = defineRoutes("/v1/admin", {
  channel: {
    method: "POST",
    path: "/channels/:id/probe",
    access: admin("refresh"),
    summary: "Probe a stored channel's source",
    tag: "sessions",
    success: [
      200,
      "`{ok, status, content_type, final_url, dur_ms}` or `{ok, dur_ms, inspection}`",
      channelProbeAnswer,
    ],
    errors: ["invalid_request", "not_found", "upstream_error"],
  },
  source: {
    method: "POST",
    path: "/source-probes",
    access: admin("refresh"),
    summary: "Probe an unsaved channel",
    tag: "sessions",
    body: sourceProbeBody,
    success: [200, "Probe result (+ `proxy_id`)", sourceProbeAnswer],
    errors: ["invalid_request"],
  },
});

export function createProbeRoutes(ctx: AdminContext): Hono<AdminEnv> {
  return routesOf(probeRoutes, {
    channel: async (c) => {
      const channel = existingChannel(ctx.channels, c.req.param("id"));
      const probe = await probeChannel(ctx, channel);
      return c.json(probe.result);
    },

    source: async (c) => {
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
    },
  });
}
