import { piecewiseBody } from "@svc/core/http";
import type { Logger } from "@svc/core/log";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import {
  type AdminContext,
  channelRestriction,
  principalOf,
  type RuntimeSessionView,
  requestBase,
} from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin, READER } from "../http/route-access.js";
import { gatewayStatusCounters, type StatusPart } from "../metrics/worker-gather.js";
import { channelListJson } from "../services/channels/channel-list-json.js";
import { renderListedChannel } from "../services/channels/channel-view.js";
import {
  type ClusterSessionEntry,
  type ClusterSessionSource,
  mergeClusterSessions,
} from "../services/status/cluster-sessions.js";
import { listedChannelList, statusAnswer, upstreamsAnswer } from "./answers.js";

export const readRoutes = defineRoutes("/v1", {
  channels: {
    method: "GET",
    path: "/channels",
    access: READER,
    summary: "Channel list (scoped)",
    tag: "channels",
    success: [200, "`{channels}`", listedChannelList],
  },
  status: {
    method: "GET",
    path: "/status",
    access: READER,
    summary: "Counters and runtime sessions",
    tag: "status",
    success: [
      200,
      "`{uptime_sec, bytes_in, bytes_out, requests, errors, goroutines, session_count, sessions}`",
      statusAnswer,
    ],
  },
  upstreams: {
    method: "GET",
    path: "/admin/upstreams",
    access: admin("read"),
    summary: "Configured upstreams",
    tag: "channels",
    success: [200, "`{upstreams}`", upstreamsAnswer],
  },
});

/**
 * `GET /v1/channels`, `GET /v1/status` (session or token with `read`) and
 * `GET /v1/admin/upstreams`. A restricted non-admin session sees only its channels.
 *
 * `goroutines` has no Node.js equivalent; it reports the process's active
 * libuv handles and requests (`process.getActiveResourcesInfo()`) plus the
 * HTTP requests in flight.
 */
export function createReadRoutes(ctx: AdminContext): Hono<AdminEnv> {
  return routesOf(readRoutes, {
    channels: (c) => {
      const p = principalOf(c);
      const only = channelRestriction(p);
      const base = requestBase(ctx, c);
      // Source credentials are for administrators: an admin session or an admin API
      // token (which reads the same through /v1/admin/channels) sees the stored value.
      const redact = p.kind === "session" && p.account.role !== "admin";
      const listed =
        only === null ? ctx.channels.list() : ctx.channels.list().filter((ch) => only.has(ch.id));
      const pieces = channelListJson(listed, (ch) => renderListedChannel(ch, base, redact));
      return c.body(piecewiseBody(pieces), 200, { "Content-Type": "application/json" });
    },

    status: async (c) => {
      const only = channelRestriction(principalOf(c));
      const sessions = (await clusterSessions(ctx, c.get("log"))).filter(
        (s) => only === null || only.has(s.channel_id),
      );
      // Workers: the counters of every worker, gathered through the primary.
      const stats = await gatewayStatusCounters(statusPart(ctx), ctx.peers);
      return c.json({
        uptime_sec: Math.floor((Date.now() - ctx.startedAt) / 1000),
        bytes_in: stats.bytes_in,
        bytes_out: stats.bytes_out,
        requests: stats.requests,
        errors: stats.errors,
        goroutines: stats.goroutines,
        session_count: sessions.length,
        sessions,
        // Extensions "Connection limits": an additive field, there once an upstream has
        // `max_connections`, so the specification's shape is unchanged otherwise.
        ...(ctx.config.upstreams.some((u) => u.max_connections !== undefined)
          ? { upstreams: ctx.sessions.upstreams?.() ?? [] }
          : {}),
      });
    },

    upstreams: (c) =>
      c.json({ upstreams: ctx.config.upstreams.map((u) => ({ id: u.id, base_url: u.base_url })) }),
  });
}

/**
 * This process's counters of `/v1/status` (with workers, its part of the gateway's sums).
 * `goroutines`: the process's active libuv handles and requests plus its HTTP requests in flight.
 */
export function statusPart(ctx: AdminContext): StatusPart {
  const stats = ctx.playbackStats();
  return {
    bytes_in: stats.bytes_in,
    bytes_out: stats.bytes_out,
    requests: stats.requests,
    errors: stats.errors,
    goroutines: process.getActiveResourcesInfo().length + (ctx.metrics?.inFlight() ?? 0),
  };
}

/**
 * This instance's sessions, or in cluster mode the whole cluster's with their
 * owner (issue 15 item 5). When the lease table cannot be read, this instance's
 * own sessions are still answered, marked with their owner.
 */
async function clusterSessions(
  ctx: AdminContext,
  log: Logger,
): Promise<readonly (RuntimeSessionView | ClusterSessionEntry)[]> {
  const local = ctx.sessions.list();
  const self = ctx.clusterSessions?.self();
  if (ctx.clusterSessions === undefined || self === undefined) return local;
  let leases: Awaited<ReturnType<ClusterSessionSource["live"]>> = [];
  try {
    leases = await ctx.clusterSessions.live();
  } catch (err) {
    log.warn({ err }, "status: the cluster's packaging leases could not be read");
  }
  return mergeClusterSessions(local, leases, self);
}
