import { GatewayError } from "@svc/core/errors";
import type { AppEnv } from "@svc/core/http";
import type { Context } from "hono";
import type { PlayRequest } from "./delivery/play-request.js";
import { egressRelayFetch } from "./hls/egress-fetch.js";
import { channelCredentialOrigin, channelRequestHeaders } from "./hls/upstream-headers.js";
import type { PlaybackRuntime } from "./playback-runtime.js";
import { HlsTsRelay } from "./sessions/ts/hls-ts-relay.js";
import { STREAM_RELAY_LIMITS } from "./sessions/ts-packager.js";
import { answerStream, STREAM_HEAD } from "./sessions/ts-stream-answer.js";

/**
 * Extensions "MPEG-TS output" of `hls` channels: one {@link HlsTsRelay} per channel (and
 * source URL), started by its first `stream.ts` viewer and stopped when the last has been
 * gone for `graceMs` ({@link STREAM_RELAY_LIMITS}). Its fetches go through the egress as the
 * proxy path's do (SSRF guard, routes, the channel's headers and user agent).
 */
export function createHlsStreamRelays(
  rt: Pick<PlaybackRuntime, "options" | "stats" | "build" | "withCors">,
) {
  const relays = new Map<string, { sourceUrl: string; relay: HlsTsRelay }>();

  function relayOf(req: PlayRequest, sourceUrl: string): HlsTsRelay {
    const id = req.channel.id;
    const running = relays.get(id);
    if (running?.sourceUrl === sourceUrl && running.relay.running) return running.relay;
    running?.relay.stop("the channel's source changed");
    const channel = req.channel;
    const fetchOnce = egressRelayFetch(
      rt.options.egress,
      {
        channelId: channel.id,
        headers: channelRequestHeaders(channel),
        credentialOrigin: channelCredentialOrigin(channel, rt.options.catalog),
      },
      (bytes) => {
        rt.stats.bytesIn += bytes;
      },
    );
    const relay: HlsTsRelay = new HlsTsRelay({
      sourceUrl,
      preferHeight: channel.prefer_height,
      audioLanguages: channel.preferred_audio_languages,
      fetch: fetchOnce,
      maxPlaylistBytes: rt.options.config.security.max_playlist_bytes,
      ...STREAM_RELAY_LIMITS,
      onStop: () => {
        if (relays.get(id)?.relay === relay) relays.delete(id);
      },
    });
    relays.set(id, { sourceUrl, relay });
    return relay;
  }

  return {
    /** `stream.ts` of an `hls` channel whose source is `sourceUrl`. */
    async stream(
      c: Context<AppEnv>,
      req: PlayRequest,
      sourceUrl: string,
      lease?: () => void,
    ): Promise<Response> {
      if (c.req.method === "HEAD") return c.body(null, 200, STREAM_HEAD);
      const relay = relayOf(req, sourceUrl);
      const fanoutOf = async () => {
        const why = await relay.ready;
        if (why !== undefined)
          throw new GatewayError("upstream_error", `stream.ts of this channel failed: ${why}`);
        return relay.fanout;
      };
      return answerStream(
        c,
        { build: rt.build, withCors: rt.withCors },
        {
          touch: () => undefined,
          count: (bytes) => {
            rt.stats.bytesOut += bytes;
          },
        },
        fanoutOf,
        lease,
      );
    },
  };
}

export type HlsStreamRelays = ReturnType<typeof createHlsStreamRelays>;
