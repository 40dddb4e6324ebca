import { isPackaged, resolveChannelSource } from "@svc/core/catalog";
import { GatewayError } from "@svc/core/errors";
import { type AppEnv, clientAddress, errorResponse, requestHeader } from "@svc/core/http";
import {
  defineRoutes,
  extensionOn,
  type RouteAccess,
  type RouteFamily,
  type RouteSwitches,
  routesOf,
} from "@svc/core/route-table";
import { type Context, Hono } from "hono";
import type { AcceptForwarded } from "./cluster/forwarded-request.js";
import { INSTANCE_TOKEN_HEADER } from "./cluster/instance-token.js";
import type { PlayRequest } from "./delivery/play-request.js";
import { llHlsDirectives } from "./hls/ll-hls-directives.js";
import { playlistResponse } from "./hls/playlist-answer.js";
import { UPSTREAM_CSP } from "./hls/upstream-headers.js";
import { signedExtension } from "./hls/upstream-signer.js";
import { LEASE_SHAPE } from "./hls/viewer-leases.js";
import { claimKeyConnection, type SeatOutcome } from "./key-connections.js";
import { type PlayGrant, playRequestOf, type ResolveGrant } from "./play-grant.js";
import type { PlaybackRuntime } from "./playback-runtime.js";
import { publicBase } from "./public-url.js";
import { MAX_PARKED_PER_CLIENT } from "./sessions/parking-limit.js";
import { serveUpstream } from "./upstream-proxy.js";

const PLAY_ERRORS = ["not_found", "upstream_error", "unavailable", "not_ready"] as const;
const OCTETS = "application/octet-stream";

/**
 * The play routes of spec "Playback" under one mount, declared once per credential
 * form: `/v1/play` (session or preview JWT) and `/p/{token}/play` (playback key).
 * `stream.ts` is the extension "MPEG-TS output", registered only with `extensions.ts_output`.
 */
export function playRouteFamily<const B extends string>(base: B, access: RouteAccess, label = "") {
  const tag = "playback";
  return defineRoutes(base, {
    index: {
      method: "GET",
      path: "/:id/index.m3u8",
      access,
      summary: `Channel entry playlist${label}`,
      tag,
      success: [200, "HLS playlist", "application/vnd.apple.mpegurl"],
      errors: PLAY_ERRORS,
    },
    stream: {
      method: "GET",
      path: "/:id/stream.ts",
      access,
      summary: `Continuous MPEG-TS of the channel${label} (extension ts_output)`,
      tag,
      success: [200, "MPEG-TS stream", "video/mp2t"],
      errors: PLAY_ERRORS,
      extension: "ts_output",
    },
    live: {
      method: "GET",
      path: "/:id/live/:file",
      access,
      summary: `Locally packaged output${label}`,
      tag,
      success: [200, "Playlist, segment or part", OCTETS],
      errors: PLAY_ERRORS,
    },
    upstream: {
      method: "GET",
      path: "/:id/u/:upstream",
      access,
      summary: `Signed upstream proxy${label}`,
      tag,
      success: [200, "Upstream bytes (playlists rewritten)", OCTETS],
      errors: PLAY_ERRORS,
    },
  });
}

export type PlayRouteFamily = ReturnType<typeof playRouteFamily<string>>;

/** `/v1/play/…`: a session or preview JWT, required as `play_require_auth` says. */
export const playRoutes: PlayRouteFamily = playRouteFamily("/v1/play", {
  credential: "play",
  scope: null,
});

/**
 * The play routes of spec "Playback", relative to their mount point, built
 * so they can be mounted once per credential form over one runtime:
 *
 * @example
 * app.route(playRoutes.base, createPlayRoutes(runtime, { resolveGrant: jwtPlayGrant(authorizer) }));
 * app.route(keyPlayRoutes.base, createPlayRoutes(runtime, { routes: keyPlayRoutes, resolveGrant: playbackKeyGrant }));
 */
export function createPlayRoutes(
  rt: PlaybackRuntime,
  options: {
    /** The mount's declarations; `/v1/play` when not given. */
    routes?: RouteFamily<string, PlayRouteFamily["routes"]>;
    resolveGrant: ResolveGrant;
    /**
     * Cluster mode, on the `/v1/play` mount: a request another instance forwarded (an
     * instance token) is served as that instance admitted it.
     */
    acceptForwarded?: AcceptForwarded;
  },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { catalog, localIngress } = rt.options;

  app.use(async (c, next) => {
    rt.stats.requests += 1;
    await next();
    if (c.res.status >= 500) rt.stats.errors += 1;
  });

  const { admit, stream } = createPlayAdmission(rt, options);

  const index = async (c: Context<AppEnv>, id: string): Promise<Response> => {
    const { request: req, minted } = await admit(c, id, "index", "index.m3u8");
    if (minted !== undefined) {
      // Spec "Playback" 6: the first request mints a lease and is sent back with it.
      const u = new URL(c.req.url);
      const base = publicBase(rt.options.publicBaseUrl(), c.req.url, requestHeader(c, "host"));
      const search = u.search === "" ? "?" : `${u.search}&`;
      return c.body(null, 307, { Location: `${base}${u.pathname}${search}viewer=${minted}` });
    }
    if (isPackaged(req.channel)) {
      if (localIngress === undefined)
        throw new GatewayError("not_ready", "local packaging is not available");
      return localIngress.index(c, req);
    }
    const source = resolveChannelSource(req.channel, catalog);
    if (source === undefined)
      throw new GatewayError("upstream_error", "channel source is not configured");
    const directives = llHlsDirectives((n) => c.req.query(n));
    const outcome = await whileParked(req, directives.includes("_HLS_msn"), () =>
      rt.playlists.getLive(req.channel, source, directives),
    );
    switch (outcome.kind) {
      case "playlist":
        return playlistResponse(c, req, outcome.compiled, rt.stats, rt);
      case "refused":
        throw new GatewayError("forbidden", "upstream target not allowed");
      case "failed":
        throw new GatewayError("upstream_error", outcome.message);
      case "status":
        throw new GatewayError("upstream_error", `upstream answered ${outcome.status}`);
      case "bytes":
        throw new GatewayError("upstream_error", "upstream did not answer a playlist");
      case "invalid":
        throw new GatewayError("invalid_request", outcome.message);
    }
  };

  // Answers built as web Responses (errors, passed-through statuses); streamed ones
  // carry the header from `keptResponseHeaders`.
  app.use("/:id/u/*", async (c, next) => {
    await next();
    c.res.headers.set("Content-Security-Policy", UPSTREAM_CSP);
  });

  const handlers = {
    index: (c: Context<AppEnv>) => index(c, c.req.param("id") ?? ""),

    // Extensions "MPEG-TS output": a real route only when `extensions.ts_output` is on.
    stream: (c: Context<AppEnv>) => stream(c, c.req.param("id") ?? ""),

    live: async (c: Context<AppEnv>) => {
      const file = c.req.param("file") ?? "";
      const { request: req } = await admit(c, c.req.param("id") ?? "", "media", `live/${file}`);
      // Spec "Playback" 2: the (decoded) file name may not contain path separators.
      if (file === "" || /[/\\\0]/.test(file) || file.includes("..")) {
        throw new GatewayError("invalid_request", "invalid file name");
      }
      if (localIngress === undefined)
        throw new GatewayError("not_found", "no locally packaged output");
      return localIngress.live(c, req, file);
    },

    upstream: async (c: Context<AppEnv>) => {
      const id = c.req.param("id") ?? "";
      const { request: req } = await admit(c, id, "media");
      // Spec "Playback" 3: any change to the target or the signature is 403, before any upstream contact.
      const upstream = c.req.param("upstream") ?? "";
      const target = rt.signer.verify(id, upstream, c.req.query("sig"));
      if (target === undefined) throw new GatewayError("forbidden", "invalid signature");
      return whileParked(req, c.req.query("_HLS_msn") !== undefined, () =>
        serveUpstream(c, rt, req, target, signedExtension(upstream)),
      );
    },
  };

  app.route(
    "/",
    routesOf<AppEnv, string, PlayRouteFamily["routes"]>(
      options.routes ?? playRoutes,
      handlers,
      rt.options.config.extensions,
    ),
  );
  // Cluster mode (and workers) without `extensions.ts_output`: the doors that stream a
  // channel all the same (Xtream's `{stream_id}.ts`, HDHomeRun's tuner URLs) forward
  // `stream.ts` of a channel another instance packages to this mount of that instance.
  // Registered then under the door's extension, it serves forwarded requests only; a
  // player's own request gets the 404 of a route that does not exist.
  const door = forwardedStreamDoor(rt.options.config.extensions);
  if (options.acceptForwarded !== undefined && door !== undefined) {
    const family = options.routes ?? playRoutes;
    const forwardedOnly = defineRoutes(family.base, {
      stream: {
        ...family.routes.stream,
        summary: `${family.routes.stream.summary}, forwarded by another instance`,
        extension: door,
      },
    });
    app.route(
      "/",
      routesOf<AppEnv, string, typeof forwardedOnly.routes>(
        forwardedOnly,
        {
          stream: (c) =>
            requestHeader(c, INSTANCE_TOKEN_HEADER) === undefined
              ? errorResponse(c, "not_found", "not found", 404)
              : handlers.stream(c),
        },
        rt.options.config.extensions,
      ),
    );
  }
  return app;
}

/**
 * The door that streams `stream.ts` without `extensions.ts_output` (Xtream, HDHomeRun),
 * when one is on and `ts_output` is off: the extension its forwarded `stream.ts` is
 * registered under (see {@link createPlayRoutes}).
 */
function forwardedStreamDoor(switches: RouteSwitches): "xtream" | "hdhomerun" | undefined {
  if (extensionOn(switches, "ts_output")) return undefined;
  if (extensionOn(switches, "xtream")) return "xtream";
  if (extensionOn(switches, "hdhomerun")) return "hdhomerun";
  return undefined;
}

/**
 * What every play route checks, and `stream.ts`, over one runtime and credential resolver:
 * shared by the play routes of a mount and by {@link createStreamDoor}.
 */
function createPlayAdmission(rt: PlaybackRuntime, options: PlayAdmissionOptions) {
  const { catalog, localIngress } = rt.options;
  /**
   * Credential, scope, channel, viewer lease: the order every play route checks in.
   * A channel with `max_viewers` needs a live lease on every route (issue 12 item 7):
   * `index.m3u8` mints one (answered with `minted`), `live/` and `u/` only renew one.
   * `viewer` is validated before it is written into any URL; on a channel without a
   * limit a well-formed value is ignored (and never copied).
   */
  /** Takes one of `client`'s parked places (see `PlayRequest.park`). */
  const parkFor = (client: string) => () => {
    const release = rt.parking.enter(client);
    if (release !== undefined) return release;
    // Issue 12 item 8: one more held connection is refused at once (docs/sessions.md).
    throw new GatewayError(
      "too_many_requests",
      `too many waiting requests from this client (at most ${MAX_PARKED_PER_CLIENT})`,
      { headers: { "Retry-After": "1" } },
    );
  };

  const admit = async (
    c: Context<AppEnv>,
    id: string,
    /**
     * `probe`: a HEAD of `stream.ts`, which takes no viewer seat; `stream`: a `stream.ts`
     * connection, whose playback-key seat the stream handler pins for its lifetime.
     */
    route: "index" | "media" | "probe" | "stream",
    /** `index.m3u8`, `live/{file}` or `stream.ts`: what a forwarded request may ask for. */
    resource?: string,
    /** A grant the caller resolved already (a door of its own); default: the mount's. */
    given?: PlayGrant,
  ): Promise<{
    request: PlayRequest;
    minted?: string;
    seat?: { holder: string; lease: string };
    /** Absent on a forwarded request (the forwarding instance admitted it). */
    grant?: PlayGrant;
  }> => {
    if (resource !== undefined && options.acceptForwarded !== undefined) {
      const play = options.acceptForwarded(c, id, resource);
      if (play !== undefined) {
        const channel = catalog.get(id);
        if (channel === undefined || channel.disabled)
          throw new GatewayError("not_found", "channel not found");
        const request: PlayRequest = {
          channel,
          prefix: play.prefix,
          query: play.query,
          sharedCache: play.sharedCache,
          park: parkFor(play.client),
          forwarded: true,
        };
        return { request };
      }
    }
    const grant = given ?? (await options.resolveGrant(c, id));
    if (grant.channels !== null && !grant.channels.has(id)) {
      throw new GatewayError("forbidden", "channel not allowed for this credential");
    }
    const channel = catalog.get(id);
    if (channel === undefined || channel.disabled)
      throw new GatewayError("not_found", "channel not found");
    const presented = c.req.query("viewer");
    if (presented !== undefined && !LEASE_SHAPE.test(presented))
      throw new GatewayError("invalid_request", "viewer is not a viewer lease");
    let viewer: string | undefined;
    let minted: string | undefined;
    let seat: { holder: string; lease: string } | undefined;
    if (channel.max_viewers !== null && route !== "probe") {
      if (presented === undefined && route === "media")
        throw new GatewayError("forbidden", "a viewer lease is required (start from index.m3u8)");
      // The credential as generated URLs carry it: the mount (with a playback key) and token.
      const holder = `${grant.pathPrefix}\0${grant.urlQuery}`;
      // Synchronous in a single process; a cluster awaits its database on a new seat only.
      const admitted = rt.leases.admit(id, holder, channel.max_viewers, presented);
      const lease = admitted instanceof Promise ? await admitted : admitted;
      if (lease.kind === "bad_signature")
        throw new GatewayError("forbidden", "invalid viewer lease");
      if (lease.kind === "full")
        throw new GatewayError("too_many_requests", "channel viewer limit reached");
      if (lease.kind === "unavailable")
        throw new GatewayError("unavailable", "viewer seats cannot be counted right now", {
          headers: { "Retry-After": "2" },
        });
      if (lease.kind === "minted") minted = lease.lease;
      else viewer = presented;
      seat = { holder, lease: (minted ?? presented)! };
    }
    const limit = grant.connections;
    if (limit !== undefined && (route === "index" || route === "media")) {
      // Extensions "Connection limits": an HLS viewer under a limited key holds one of its
      // seats, named by its viewer lease (minted here when the channel has no `max_viewers`).
      let seatId: string;
      if (seat !== undefined) seatId = seat.lease.slice(0, seat.lease.indexOf("."));
      else {
        const holder = `${grant.pathPrefix}\0${grant.urlQuery}`;
        if (presented === undefined) {
          if (route === "media")
            throw new GatewayError(
              "forbidden",
              "a viewer lease is required (start from index.m3u8)",
            );
          const fresh = rt.leaseSigner.mint(id, holder);
          minted = fresh.lease;
          seatId = fresh.id;
        } else {
          const verified = rt.leaseSigner.verify(id, holder, presented);
          if (verified === undefined) throw new GatewayError("forbidden", "invalid viewer lease");
          viewer = presented;
          seatId = verified;
        }
      }
      const held = rt.keyConnections.hold(limit.keyId, seatId, limit.max, false);
      keySeatRefusal(held instanceof Promise ? await held : held, limit.max);
    }
    const base = publicBase(rt.options.publicBaseUrl(), c.req.url, requestHeader(c, "host"));
    const request: PlayRequest = {
      ...playRequestOf(grant, channel, base, viewer),
      park: parkFor(clientAddress(c)),
    };
    return {
      request,
      grant,
      ...(minted === undefined ? {} : { minted }),
      ...(seat === undefined ? {} : { seat }),
    };
  };

  /**
   * `stream.ts` of channel `id`: the play route, and the doors that stream a channel under
   * a credential they checked themselves (HDHomeRun `auto/v`), which pass their `grant`.
   */
  const stream = async (c: Context<AppEnv>, id: string, given?: PlayGrant): Promise<Response> => {
    // A stream.ts viewer holds a seat of `max_viewers` as an HLS viewer does: the request
    // takes one (no redirect: players of raw TS do not follow one with a lease) and the
    // connection renews it while it reads; it lapses LEASE_TTL_MS after the viewer leaves.
    const {
      request: req,
      seat,
      grant,
    } = await admit(c, id, c.req.method === "HEAD" ? "probe" : "stream", "stream.ts", given);
    const max = req.channel.max_viewers;
    const renew =
      seat === undefined || max === null
        ? undefined
        : () => {
            // A cluster's seat store may fail for a moment: the next renewal tries again.
            Promise.resolve(rt.leases.admit(id, seat.holder, max, seat.lease)).catch(
              () => undefined,
            );
          };
    let play: () => Promise<Response>;
    if (!isPackaged(req.channel)) {
      const source = resolveChannelSource(req.channel, catalog);
      if (source === undefined)
        throw new GatewayError("upstream_error", "channel source is not configured");
      play = () => rt.hlsStreams.stream(c, req, source, renew);
    } else {
      const ingress = localIngress;
      if (ingress?.stream === undefined)
        throw new GatewayError("not_ready", "local packaging is not available");
      play = () => ingress.stream!(c, req, renew);
    }
    const limit = c.req.method === "HEAD" ? undefined : grant?.connections;
    if (limit === undefined) return play();
    // Extensions "Connection limits": the connection holds one of the key's seats from
    // here until it closes.
    const claim = await claimKeyConnection(rt.keyConnections, limit);
    if (claim.kind !== "held") keySeatRefusal(claim.kind, limit.max);
    const { release } = claim as { release: () => void };
    let answer: Response;
    try {
      answer = await play();
    } catch (err) {
      release();
      throw err;
    }
    // Unit tests call the app without a node response: nothing stays open there.
    const out = c.env?.outgoing as typeof c.env.outgoing | undefined;
    if (out === undefined || out.destroyed || answer.status !== 200) release();
    else out.once("close", release);
    return answer;
  };

  return { admit, stream };
}

interface PlayAdmissionOptions {
  resolveGrant: ResolveGrant;
  acceptForwarded?: AcceptForwarded;
}

/**
 * Streams channel `id` as `stream.ts` does (credential scope, channel, `max_viewers`
 * and playback-key seats), for a door that checked the credential itself and passes its
 * grant: HDHomeRun `auto/v{n}`, Xtream `live/…`.
 */
export type StreamDoor = (c: Context<AppEnv>, id: string, grant: PlayGrant) => Promise<Response>;

export function createStreamDoor(rt: PlaybackRuntime): StreamDoor {
  const { stream } = createPlayAdmission(rt, {
    resolveGrant: () => Promise.reject(new GatewayError("unauthorized", "no credential")),
  });
  return stream;
}

/**
 * Extensions "Connection limits": a playback key's seats are all taken (429; the HDHomeRun
 * door answers 503 with `X-HDHomeRun-Error: 805` instead), or cannot be counted (cluster).
 */
function keySeatRefusal(outcome: SeatOutcome, max: number): void {
  if (outcome === "full")
    throw new GatewayError(
      "too_many_requests",
      `playback key connection limit reached (max_connections ${max})`,
      { headers: { "Retry-After": "5" } },
    );
  if (outcome === "unavailable")
    throw new GatewayError("unavailable", "key connections cannot be counted right now", {
      headers: { "Retry-After": "2" },
    });
}

/** Runs `work` holding one of the client's parked places when `waits` (a blocking reload). */
async function whileParked<T>(
  req: PlayRequest,
  waits: boolean,
  work: () => Promise<T>,
): Promise<T> {
  const release = waits ? req.park?.() : undefined;
  try {
    return await work();
  } finally {
    release?.();
  }
}
