import type { ServerResponse } from "node:http";
import { packagingOf } from "@svc/core/catalog";
import { GatewayError } from "@svc/core/errors";
import type { AppEnv } from "@svc/core/http";
import type { Context } from "hono";
import {
  blockingTimeoutMs,
  decideBlockingReload,
  parseDeliveryDirectives,
} from "../dash/publisher/delivery-directives.js";
import { llTrace, llTraceOn } from "../dash/publisher/ll-trace.js";
import { QUERY_MARK, type RenditionWindow } from "../dash/publisher/rendition-window.js";
import type { LocalIngress, PlayRequest } from "../delivery/play-request.js";
import { alreadySent, whenClosed, writeCorked, writeDirectHead } from "../hls/direct-response.js";
import { PLAYLIST_CONTENT_TYPE } from "../hls/playlist-answer.js";
import { bytesOutCounter } from "./bytes-out-counter.js";
import { isFolderPlaylist, serveFolderFile } from "./folder-output.js";
import { type LiveFile, parseLiveFile } from "./live-file-name.js";
import { mediaCacheControl, PLAYLIST_CACHE_CONTROL } from "./media-cache-control.js";
import { clientSignal, gone, notReady, notServed, waitReady } from "./play-waits.js";
import { answerPlaylistText } from "./playlist-text-answer.js";
import type { RuntimeSession } from "./runtime-session.js";
import type { SessionManager } from "./session-manager.js";
import { Fmp4TsRelay } from "./ts/fmp4-ts-relay.js";
import { createTsLocalIngress, type TsLocalIngressOptions } from "./ts-local-ingress.js";
import { STREAM_RELAY_LIMITS } from "./ts-packager.js";
import { answerStream, STREAM_HEAD, sessionHost } from "./ts-stream-answer.js";

/** Spec "Limits": low-latency blocking lasts up to 15 seconds. */
const BLOCK_CAP_MS = 15_000;

/** The DASH engine's ingress serves `ts` channels through the TS one, with the same options. */
export type DashLocalIngressOptions = TsLocalIngressOptions;

/**
 * The DASH engine's side of the play routes (`LocalIngress`): `index.m3u8` answers the
 * master playlist of the channel's current publication, `live/{file}` its media
 * playlists (with LL-HLS blocking reload and delta updates), init sections, segments
 * and parts. Every URL written carries the generation `g` and the request's credential
 * query; a request for another generation is redirected (307) when the file maps to
 * the current one, else answered 410 with `Retry-After`.
 *
 * Media playlists, init sections, segments and parts are written straight to the node
 * response (`writeDirectHead`), as the HLS path's answers are: a web `Response` per answer
 * and, for a part streamed while it is written, a web `ReadableStream` with a copy of every
 * new piece, are what a played channel paid per request on top of the bytes themselves.
 */
export function createDashLocalIngress(o: DashLocalIngressOptions): LocalIngress {
  const count = bytesOutCounter(o.stats);

  const ts = createTsLocalIngress(o);
  const relays = new Map<string, { session: RuntimeSession; relay: Fmp4TsRelay }>();
  // The `live/` files of a `ts` channel on `engine: ffmpeg` are served from its folder, as
  // a DASH one's are; its index.m3u8 goes through the TS side (a 502 naming the reason).
  const tsEngine = (req: PlayRequest) => packagingOf(req.channel) === "ts";
  const tsNative = (req: PlayRequest) =>
    tsEngine(req) && (req.channel.ingress !== "ts" || req.channel.engine !== "ffmpeg");
  return {
    index: (c, req) => (tsEngine(req) ? ts.index(c, req) : index(c, req)),
    live: (c, req, file) => (tsNative(req) ? ts.live(c, req, file) : live(c, req, file)),
    stream: (c, req, lease) => (tsEngine(req) ? ts.stream!(c, req, lease) : remuxed(c, req, lease)),
  };

  /**
   * Extensions "MPEG-TS output" of a DASH channel: the native engine's publication
   * remuxed to MPEG-TS, one relay per channel for all its viewers (`Fmp4TsRelay`).
   */
  async function remuxed(
    c: Context<AppEnv>,
    req: PlayRequest,
    lease?: () => void,
  ): Promise<Response> {
    if (c.req.method === "HEAD") return c.body(null, 200, STREAM_HEAD);
    const session = o.sessions.open(req.channel);
    if (!session) throw new GatewayError("not_ready", "channel is not running");
    const fanoutOf = async () => {
      if (!(await waitReady(session, req, clientSignal(c))))
        throw notServed(session, "channel is starting");
      const packager = session.packager;
      if (packager?.folder !== undefined)
        throw new GatewayError(
          "not_found",
          "stream.ts is not available for a channel packaged by the ffmpeg engine (engine: native carries it); play index.m3u8",
        );
      const pub = packager?.publication;
      if (!pub) return undefined;
      return relayOf(session).fanout;
    };
    return answerStream(
      c,
      { build: o.build, withCors: o.withCors },
      sessionHost(session, count),
      fanoutOf,
      lease,
    );
  }

  /** The channel's running relay, or a new one; a source it cannot carry is a 404 naming why. */
  function relayOf(session: RuntimeSession): Fmp4TsRelay {
    const id = session.channel.id;
    const running = relays.get(id);
    if (running?.session === session && running.relay.running) return running.relay;
    running?.relay.stop("session replaced");
    const pub = session.packager?.publication;
    const why = pub ? Fmp4TsRelay.check(pub) : "channel is starting";
    if (why !== undefined)
      throw new GatewayError("not_found", `stream.ts cannot carry this channel: ${why}`);
    const relay: Fmp4TsRelay = new Fmp4TsRelay({
      publication: () => session.packager?.publication,
      alive: () => o.sessions.get(id) === session && !session.stopping(),
      ...STREAM_RELAY_LIMITS,
      onStop: () => {
        if (relays.get(id)?.relay === relay) relays.delete(id);
      },
    });
    relays.set(id, { session, relay });
    return relay;
  }

  /** The head of a 200 answer, written straight to the node response (chunked without `length`). */
  function writeHead(
    c: Context<AppEnv>,
    contentType: string,
    cacheControl: string,
    length?: number,
  ): void {
    const headers: Record<string, string> = {
      "content-type": contentType,
      "cache-control": cacheControl,
    };
    if (length !== undefined) headers["content-length"] = String(length);
    writeDirectHead(c, o.build, 200, headers, o.withCors);
  }

  async function index(c: Context<AppEnv>, req: PlayRequest): Promise<Response> {
    const session = o.sessions.open(req.channel);
    if (!session) throw new GatewayError("not_ready", "channel is not running");
    const signal = clientSignal(c);
    if (!(await waitReady(session, req, signal)))
      throw notServed(
        session,
        session.state === "failed"
          ? "channel session failed (its reason is last_error in the session status)"
          : session.lastError === null
            ? "channel is starting"
            : "channel is not ready",
      );
    const packager = session.packager;
    if (packager?.folder !== undefined) {
      const r = await serveFolderFile(c, req, packager, "index.m3u8", "index");
      count(session, r.bytes);
      return r.response;
    }
    const text = packager?.publication?.master();
    if (text === undefined) throw notReady("channel is starting");
    const answer = answerPlaylistText(c, text, req);
    count(session, answer.bytes);
    return answer.response;
  }

  async function live(c: Context<AppEnv>, req: PlayRequest, file: string): Promise<Response> {
    const current = o.sessions.get(req.channel.id);
    if (current?.engine === "ffmpeg" || (!current && isFolderPlaylist(file)))
      return folderLive(c, req, file);
    const lf = parseLiveFile(file);
    if (!lf) throw new GatewayError("not_found", "no such file");
    const url = new URL(c.req.url);
    const g = url.searchParams.get("g");
    const session = lf.kind === "playlist" ? o.sessions.open(req.channel) : current;
    if (!session) {
      if (lf.kind === "playlist") throw new GatewayError("not_ready", "channel is not running");
      throw gone();
    }
    session.touch();
    const signal = clientSignal(c);
    if (lf.kind === "playlist" && !(await waitReady(session, req, signal)))
      throw notServed(session, "channel is starting");
    const pub = session.packager?.publication;
    if (!pub) throw g === null ? new GatewayError("not_found", "not published") : gone();
    const window = pub.windows.get(lf.rendition);
    if (g !== null && g !== pub.generation) {
      // Spec "Playback" 2: a changed generation redirects when the file maps to the current one.
      if (window && mapsToCurrent(lf, window)) {
        const keep = [...url.searchParams]
          .filter(([k]) => k.startsWith("_HLS_"))
          .map(([k, v]) => `&${k}=${encodeURIComponent(v)}`)
          .join("");
        return c.body(null, 307, {
          Location: `${req.prefix}live/${file}?g=${pub.generation}${req.query}${keep}`,
          "Cache-Control": PLAYLIST_CACHE_CONTROL,
        });
      }
      throw gone();
    }
    if (!window) throw new GatewayError("not_found", "no such rendition");
    // Immutable only under the generation it was published in (see mediaCacheControl).
    const cacheControl = mediaCacheControl(req, g !== null);
    switch (lf.kind) {
      case "playlist":
        return playlist(c, req, session, window, url.searchParams, signal);
      case "map": {
        const bytes = window.maps.get(lf.index);
        if (!bytes) throw new GatewayError("not_found", "no such initialization section");
        return media(c, session, window, [bytes], bytes.length, cacheControl);
      }
      case "segment": {
        const f = window.segmentFile(lf.msn);
        if (f.kind === "bytes")
          return media(c, session, window, f.bytes, f.byteLength, cacheControl);
        if (f.kind === "future") throw new GatewayError("unavailable", "segment not ready yet");
        throw new GatewayError("not_found", "segment left the window");
      }
      case "part":
        return part(c, req, session, window, lf.msn, lf.part, signal, cacheControl);
    }
  }

  /** `live/{file}` of a session of the compatibility engine (files in a folder). */
  async function folderLive(c: Context<AppEnv>, req: PlayRequest, file: string) {
    const playlistFile = isFolderPlaylist(file);
    const session = playlistFile ? o.sessions.open(req.channel) : o.sessions.get(req.channel.id);
    if (!session) {
      if (playlistFile) throw new GatewayError("not_ready", "channel is not running");
      throw gone();
    }
    session.touch();
    if (playlistFile && !(await waitReady(session, req, clientSignal(c))))
      throw notServed(session, "channel is starting");
    const packager = session.packager;
    if (packager?.folder === undefined)
      throw playlistFile ? notReady("channel is starting") : gone();
    // A restarted packager writes into a new folder: media of another generation is gone.
    const g = new URL(c.req.url).searchParams.get("g");
    if (!playlistFile && g !== null && g !== packager.generation) throw gone();
    const r = await serveFolderFile(c, req, packager, file, "live");
    count(session, r.bytes);
    return r.response;
  }

  async function playlist(
    c: Context<AppEnv>,
    req: PlayRequest,
    session: RuntimeSession,
    window: RenditionWindow,
    params: URLSearchParams,
    signal: AbortSignal,
  ): Promise<Response> {
    const d = parseDeliveryDirectives(params);
    if (!d.ok) throw new GatewayError("invalid_request", d.error.message);
    const pub = session.packager?.publication;
    const arrived = llTraceOn() ? { at: Date.now(), edge: window.edge() } : undefined;
    let outcome = "plain";
    if (d.msn !== undefined && pub) {
      // RFC 8216bis 6.2.5.2: hold the request until the playlist holds msn/part.
      const deadline = Date.now() + blockingTimeoutMs(window.targetDurationSec, BLOCK_CAP_MS);
      let release: (() => void) | undefined;
      try {
        for (;;) {
          const decision = decideBlockingReload(d, window.edge());
          if (decision.action === "reject") {
            if (arrived) traceRequest(window, d, arrived, "reject");
            throw new GatewayError("invalid_request", decision.error.message);
          }
          outcome = "respond";
          if (decision.action === "respond") break;
          const left = deadline - Date.now();
          outcome = left <= 0 ? "deadline" : signal.aborted ? "aborted" : "republished";
          if (left <= 0 || signal.aborted || session.packager?.publication !== pub) break;
          release ??= req.park?.();
          await pub.nextChange(left, signal);
        }
      } finally {
        release?.();
      }
    }
    if (arrived) traceRequest(window, d, arrived, outcome);
    if (signal.aborted) return c.body(null, 204);
    const reports = [...(pub?.windows.values() ?? [])]
      .filter((w) => w !== window)
      .map((w) => w.report());
    const text = window.render(d.skip, window.partTargetSec === undefined ? [] : reports);
    const body = text.replaceAll(QUERY_MARK, req.query);
    const length = Buffer.byteLength(body);
    count(session, length);
    writeHead(c, PLAYLIST_CONTENT_TYPE, PLAYLIST_CACHE_CONTROL, length);
    c.env.outgoing.end(body);
    return alreadySent(200);
  }

  async function part(
    c: Context<AppEnv>,
    req: PlayRequest,
    session: RuntimeSession,
    window: RenditionWindow,
    msn: number,
    index: number,
    signal: AbortSignal,
    cacheControl: string,
  ): Promise<Response> {
    let f = window.partFile(msn, index);
    if (f.kind === "future" && window.isHinted(msn, index)) {
      // RFC 8216bis 6.2.6: a preload-hinted part is answered as soon as it is being
      // written, its bytes streamed as they arrive (clear content), else once complete.
      const deadline = Date.now() + blockingTimeoutMs(window.targetDurationSec, BLOCK_CAP_MS);
      let release: (() => void) | undefined;
      try {
        while (
          f.kind === "future" &&
          session.packager?.publication?.windows.get(window.name) === window
        ) {
          if (window.growingPart(msn, index) !== undefined)
            return streamPart(c, session, window, msn, index, deadline, signal, cacheControl);
          const left = deadline - Date.now();
          if (left <= 0 || signal.aborted) break;
          release ??= req.park?.();
          await window.nextGrowth(Math.min(left, 1000));
          f = window.partFile(msn, index);
        }
      } finally {
        release?.();
      }
    }
    if (f.kind === "bytes") return media(c, session, window, f.bytes, f.byteLength, cacheControl);
    if (f.kind === "future") throw new GatewayError("unavailable", "part not ready yet");
    throw new GatewayError("not_found", "part left the window");
  }

  /**
   * Streams a part while it is written: each new piece goes out as it arrives (chunked),
   * the answer ends with the part's last byte, and a part abandoned (or not completed by
   * `deadline`) cuts the connection, so the player sees a truncated answer, not a short part.
   */
  async function streamPart(
    c: Context<AppEnv>,
    session: RuntimeSession,
    window: RenditionWindow,
    msn: number,
    index: number,
    deadline: number,
    signal: AbortSignal,
    cacheControl: string,
  ): Promise<Response> {
    const out = c.env.outgoing;
    // The bytes that will be complete are the part's: the same header as a finished part.
    writeHead(c, contentTypeOf(window), cacheControl);
    let sent = 0;
    /** Writes what `pieces` (the part's bytes so far, in order) hold past `sent`. */
    const send = (pieces: readonly Buffer[]) => {
      const fresh: Buffer[] = [];
      let at = 0;
      for (const b of pieces) {
        const end = at + b.length;
        if (end > sent) fresh.push(at >= sent ? b : b.subarray(sent - at));
        at = end;
      }
      if (fresh.length === 0) return;
      count(session, at - sent);
      sent = at;
      writeCorked(out, fresh);
    };
    for (;;) {
      if (out.destroyed) return alreadySent(200);
      const done = window.partFile(msn, index);
      if (done.kind === "bytes") {
        holdWhileWriting(out, window, done.bytes);
        send(done.bytes);
        out.end();
        return alreadySent(200);
      }
      const growing = window.growingPart(msn, index);
      if (growing === undefined || done.kind === "gone") break;
      send(growing);
      if (signal.aborted || Date.now() > deadline) break;
      await window.nextGrowth(Math.min(1000, Math.max(1, deadline - Date.now())));
    }
    out.destroy();
    return alreadySent(200);
  }

  function media(
    c: Context<AppEnv>,
    session: RuntimeSession,
    window: RenditionWindow,
    bytes: readonly Buffer[],
    byteLength: number,
    cacheControl: string,
  ): Response {
    count(session, byteLength);
    writeHead(c, contentTypeOf(window), cacheControl, byteLength);
    const out = c.env.outgoing;
    holdWhileWriting(out, window, bytes);
    writeCorked(out, bytes);
    out.end();
    return alreadySent(200);
  }
}

/**
 * The window reuses the memory of bytes nothing reads any more: bytes an answer writes are
 * held until its response closes (written out, or the client gone).
 */
function holdWhileWriting(
  out: ServerResponse,
  window: RenditionWindow,
  bytes: readonly Buffer[],
): void {
  whenClosed(out, window.hold(bytes));
}

function contentTypeOf(window: RenditionWindow): string {
  return window.name.startsWith("v") ? "video/mp4" : "audio/mp4";
}

/** Can a file of another generation be served from the current one? */
function mapsToCurrent(lf: LiveFile, window: RenditionWindow): boolean {
  switch (lf.kind) {
    case "playlist":
      return true;
    case "map":
      return window.maps.has(lf.index);
    case "segment":
      return window.segmentFile(lf.msn).kind === "bytes";
    case "part":
      return window.partFile(lf.msn, lf.part).kind === "bytes";
  }
}

/** One `SVC_LLHLS_TRACE` line for a media playlist request (see ll-trace.ts). */
function traceRequest(
  window: RenditionWindow,
  d: { msn?: number; part?: number; skip?: string },
  arrived: { at: number; edge: ReturnType<RenditionWindow["edge"]> },
  outcome: string,
): void {
  const now = window.edge();
  llTrace({
    ev: "playlist",
    r: window.name,
    msn: d.msn,
    part: d.part,
    skip: d.skip,
    arrived: arrived.at,
    held: Date.now() - arrived.at,
    edgeIn: [arrived.edge.lastMsn, arrived.edge.lastPart?.msn, arrived.edge.lastPart?.index],
    edgeOut: [now.lastMsn, now.lastPart?.msn, now.lastPart?.index],
    outcome,
  });
}
