import { type EgressResponse, readBodyCapped } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import type { AppEnv } from "@svc/core/http";
import type { Context } from "hono";
import type { PlayRequest } from "./delivery/play-request.js";
import {
  abortOnDisconnect,
  alreadySent,
  pipeBody,
  readFirstChunk,
  writeDirectHead,
} from "./hls/direct-response.js";
import { llHlsDirectives } from "./hls/ll-hls-directives.js";
import {
  playlistResponse,
  SANDBOXED,
  UPSTREAM_PLAYLIST_EXTENSIONS,
  upstreamOutcomeResponse,
} from "./hls/playlist-answer.js";
import { compilePlaylist, looksLikePlaylist } from "./hls/playlist-rewriter.js";
import {
  channelCredentialOrigin,
  channelRequestHeaders,
  isAmbiguousType,
  isPlaylistType,
  keptResponseHeaders,
  PASSTHROUGH_STATUSES,
} from "./hls/upstream-headers.js";
import type { PlaybackRuntime } from "./playback-runtime.js";

/**
 * `GET …/u/{upstream}` after the signature check (spec "Playback" 3); `extension` is the
 * verified target's (`signedExtension` of the path segment). Playlists
 * go through the shared playlist source and are rewritten; everything else is
 * streamed, never held whole: shared with identical concurrent requests when it
 * fits the fan-in budget, else piped straight through.
 */
export async function serveUpstream(
  c: Context<AppEnv>,
  rt: PlaybackRuntime,
  req: PlayRequest,
  target: string,
  extension: string,
): Promise<Response> {
  const directives = llHlsDirectives((n) => c.req.query(n));
  if (directives !== "" || UPSTREAM_PLAYLIST_EXTENSIONS.has(extension)) {
    const outcome = await rt.playlists.getLive(req.channel, target, directives);
    if (outcome.kind === "playlist")
      return playlistResponse(c, req, outcome.compiled, rt.stats, rt, SANDBOXED);
    return upstreamOutcomeResponse(c, outcome, rt.stats);
  }
  const range = c.req.header("range");
  const ifRange = c.req.header("if-range");
  if (range === undefined && ifRange === undefined) return serveShared(c, rt, req, target);

  // Spec "Playback" 3: of the client's headers only Range and If-Range go upstream.
  const headers = channelRequestHeaders(req.channel);
  if (range !== undefined) headers.range = range;
  if (ifRange !== undefined) headers["if-range"] = ifRange;
  return fetchAndRelay(c, rt, req, target, headers);
}

/** One upstream fetch of this client's own (aborted when it disconnects), relayed to it. */
async function fetchAndRelay(
  c: Context<AppEnv>,
  rt: PlaybackRuntime,
  req: PlayRequest,
  target: string,
  headers: Record<string, string>,
): Promise<Response> {
  const ac = abortOnDisconnect(c);
  const r = await rt.options.egress.request(target, {
    headers,
    signal: ac.signal,
    channelId: req.channel.id,
    credentialOrigin: channelCredentialOrigin(req.channel, rt.options.catalog),
  });
  if (!r.ok) {
    if (r.kind === "aborted") return alreadySent(499);
    return upstreamOutcomeResponse(
      c,
      r.kind === "refused"
        ? { kind: "refused", message: r.message }
        : { kind: "failed", message: r.message },
      rt.stats,
    );
  }
  return relay(c, rt, req, r, undefined);
}

/** Identical concurrent requests without Range share one upstream fetch. */
async function serveShared(
  c: Context<AppEnv>,
  rt: PlaybackRuntime,
  req: PlayRequest,
  target: string,
): Promise<Response> {
  const sub = rt.segments.join(req.channel, target);
  const out = c.env.outgoing;
  out.once("close", () => sub.leave());
  const outcome = await sub.outcome;
  switch (outcome.kind) {
    case "stream":
      if (out.destroyed) return alreadySent(499);
      writeDirectHead(c, rt.build, 200, outcome.headers, rt.withCors);
      sub.pipeTo(out);
      return alreadySent(200);
    case "solo":
    case "playlist": {
      const taken = sub.take();
      if (taken !== undefined) return relay(c, rt, req, taken.response, taken.first);
      // Another viewer took the one upstream answer: this one fetches on its own.
      return fetchAndRelay(c, rt, req, target, channelRequestHeaders(req.channel));
    }
    default:
      return upstreamOutcomeResponse(c, outcome, rt.stats);
  }
}

/** Streams one upstream answer to this client, or rewrites it when it is a playlist. */
async function relay(
  c: Context<AppEnv>,
  rt: PlaybackRuntime,
  req: PlayRequest,
  r: EgressResponse,
  first: Buffer | undefined,
): Promise<Response> {
  if (PASSTHROUGH_STATUSES.has(r.status)) {
    r.body.dump().catch(() => undefined);
    const range = r.headers["content-range"];
    return c.body(
      null,
      r.status as 404,
      r.status === 416 && typeof range === "string" ? { "Content-Range": range } : {},
    );
  }
  if (r.status !== 200 && r.status !== 206) {
    r.body.dump().catch(() => undefined);
    throw new GatewayError("upstream_error", `upstream answered ${r.status}`);
  }
  const type = r.headers["content-type"];
  let head = first;
  if (r.status === 200 && head === undefined && !isPlaylistType(type) && isAmbiguousType(type)) {
    try {
      head = (await readFirstChunk(r.body)) ?? undefined;
    } catch {
      throw new GatewayError("upstream_error", "upstream body failed");
    }
  }
  if (
    r.status === 200 &&
    (isPlaylistType(type) || (head !== undefined && looksLikePlaylist(head)))
  ) {
    const body = await readBodyCapped(r.body, rt.options.config.security.max_playlist_bytes, head);
    if (!body.ok)
      throw new GatewayError(
        "upstream_error",
        body.kind === "too_large" ? "upstream playlist exceeds max_playlist_bytes" : body.message,
      );
    rt.stats.bytesIn += body.bytes.length;
    const compiled = compilePlaylist(body.bytes.toString("utf8"), {
      baseUrl: r.url,
      policy: rt.rewritePolicy(req.channel, r.url),
      sign: (t) => rt.signer.sign(req.channel.id, t),
    });
    return playlistResponse(c, req, compiled, rt.stats, rt, SANDBOXED);
  }
  if (c.env.outgoing.destroyed) {
    r.body.destroy();
    return alreadySent(499);
  }
  writeDirectHead(c, rt.build, r.status, keptResponseHeaders(r.headers), rt.withCors);
  await pipeBody(c, r.body, head, rt.stats);
  return alreadySent(r.status);
}
