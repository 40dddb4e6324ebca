import { GatewayError } from "@svc/core/errors";
import type { AppEnv, Build } from "@svc/core/http";
import type { Context } from "hono";
import type { LocalIngress, PlayRequest } from "../delivery/play-request.js";
import type { PlaybackStats } from "../delivery/playback-stats.js";
import { alreadySent, writeDirectHead } from "../hls/direct-response.js";
import { bytesOutCounter } from "./bytes-out-counter.js";
import { serveFolderFile } from "./folder-output.js";
import { mediaCacheControl, PLAYLIST_CACHE_CONTROL } from "./media-cache-control.js";
import { clientSignal, gone, notReady, waitReady } from "./play-waits.js";
import { answerPlaylistText } from "./playlist-text-answer.js";
import type { RuntimeSession } from "./runtime-session.js";
import type { SessionManager } from "./session-manager.js";
import { parseTsLiveFile, TS_MEDIA_PLAYLIST } from "./ts/ts-window.js";
import { answerStream, STREAM_HEAD, sessionHost } from "./ts-stream-answer.js";

export interface TsLocalIngressOptions {
  readonly sessions: SessionManager;
  readonly build: Build;
  /** `security.cors_origins` is set: the answers written directly copy the CORS headers. */
  readonly withCors: boolean;
  /** The runtime's counters (`bytes_out` of `/v1/status`), read lazily. */
  readonly stats?: () => PlaybackStats | undefined;
}

/**
 * The play routes of a `ts` channel (extensions "MPEG-TS ingress"): `index.m3u8` is the
 * master playlist (CODECS and RESOLUTION from the PMT and SPS), `live/media.m3u8?g=…` the
 * media playlist of the channel's TS segments, `live/s-{msn}.ts?g=…` one segment. The
 * `live/` rules of the spec ("Playback" 2) apply: a segment is immutable under the
 * generation it was published in, another generation's is 410. A source that cannot be
 * played (not TS, an HTTP error, a refused host) answers 502 `upstream_error` with the
 * reason, as soon as the session has found it.
 */
export function createTsLocalIngress(o: TsLocalIngressOptions): LocalIngress {
  const count = bytesOutCounter(o.stats);

  /**
   * `live/media.m3u8?g=…`: the media playlist. Numbers go on across generations, so the
   * playlist of another generation is the current one: a player holding an old master
   * is redirected (307) to it, as the DASH engine does (spec "Playback" 2).
   */
  async function mediaPlaylist(c: Context<AppEnv>, req: PlayRequest): Promise<Response> {
    const session = o.sessions.open(req.channel);
    if (!session) throw new GatewayError("not_ready", "channel is not running");
    await ready(c, session, req);
    const window = session.packager?.tsWindow;
    const text = window?.render();
    if (window === undefined || text === undefined) throw notReady("channel is starting");
    const g = new URL(c.req.url).searchParams.get("g");
    if (g !== null && g !== window.generation)
      return c.body(null, 307, {
        Location: `${req.prefix}live/${TS_MEDIA_PLAYLIST}?g=${window.generation}${req.query}`,
        "Cache-Control": PLAYLIST_CACHE_CONTROL,
      });
    const answer = answerPlaylistText(c, text, req);
    count(session, answer.bytes);
    return answer.response;
  }

  return {
    async index(c: Context<AppEnv>, req: PlayRequest): Promise<Response> {
      const session = o.sessions.open(req.channel);
      if (!session) throw new GatewayError("not_ready", "channel is not running");
      await ready(c, session, req);
      const packager = session.packager;
      if (packager?.folder !== undefined) {
        // `engine: ffmpeg`: the master playlist ffmpeg wrote.
        const r = await serveFolderFile(c, req, packager, "index.m3u8", "index");
        count(session, r.bytes);
        return r.response;
      }
      const text = packager?.tsWindow?.renderMaster(packager.tsProgram?.() ?? {});
      if (text === undefined) throw notReady("channel is starting");
      const answer = answerPlaylistText(c, text, req);
      count(session, answer.bytes);
      return answer.response;
    },

    /**
     * `stream.ts` (extensions "MPEG-TS output"): the channel's one upstream connection,
     * relayed from the latest random-access point for as long as the client reads.
     * `HEAD` answers the headers without opening the session.
     */
    async stream(c: Context<AppEnv>, req: PlayRequest, lease?: () => void): Promise<Response> {
      if (req.channel.engine === "ffmpeg")
        throw new GatewayError(
          "not_found",
          "stream.ts is not available for a ts channel on engine ffmpeg (use engine auto or native); play index.m3u8",
        );
      if (c.req.method === "HEAD") return c.body(null, 200, STREAM_HEAD);
      const session = o.sessions.open(req.channel);
      if (!session) throw new GatewayError("not_ready", "channel is not running");
      // A viewer joins as soon as the source delivers, at its first random-access point.
      const fanoutOf = () =>
        ready(c, session, req, "delivering").then(() => session.packager?.fanout);
      return answerStream(
        c,
        { build: o.build, withCors: o.withCors },
        sessionHost(session, count),
        fanoutOf,
        lease,
      );
    },

    async live(c: Context<AppEnv>, req: PlayRequest, file: string): Promise<Response> {
      if (file === TS_MEDIA_PLAYLIST) return mediaPlaylist(c, req);
      const msn = parseTsLiveFile(file);
      if (msn === undefined) throw new GatewayError("not_found", "no such file");
      const g = new URL(c.req.url).searchParams.get("g");
      const session = o.sessions.get(req.channel.id);
      if (!session) throw gone();
      session.touch();
      const window = session.packager?.tsWindow;
      if (!window) throw g === null ? new GatewayError("not_found", "not published") : gone();
      // Numbers go on across generations, so a segment of another one is never here.
      if (g !== null && g !== window.generation) throw gone();
      const f = window.segmentFile(msn);
      if (f.kind === "future") throw new GatewayError("unavailable", "segment not ready yet");
      if (f.kind === "gone") throw new GatewayError("not_found", "segment left the window");
      count(session, f.bytes.length);
      writeDirectHead(
        c,
        o.build,
        200,
        {
          "content-type": "video/mp2t",
          "cache-control": mediaCacheControl(req, g !== null),
          "content-length": String(f.bytes.length),
        },
        o.withCors,
      );
      const out = c.env.outgoing;
      out.end(f.bytes);
      return alreadySent(200);
    },
  };
}

/**
 * Waits for the session's first segment (or, `until: "delivering"`, for its source to
 * deliver); 502 with the reason when the source cannot play.
 */
export async function ready(
  c: Context<AppEnv>,
  session: RuntimeSession,
  req: PlayRequest,
  until: "published" | "delivering" = "published",
): Promise<void> {
  if (await waitReady(session, req, clientSignal(c), until)) return;
  if (session.state === "failed")
    throw new GatewayError(
      "upstream_error",
      `channel source failed: ${session.lastError ?? "unknown reason"}`,
    );
  throw notReady("channel is starting");
}
