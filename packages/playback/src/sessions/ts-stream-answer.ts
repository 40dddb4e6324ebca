import { GatewayError } from "@svc/core/errors";
import type { AppEnv, Build } from "@svc/core/http";
import type { Context } from "hono";
import { alreadySent, writeDirectHead } from "../hls/direct-response.js";
import type { RuntimeSession } from "./runtime-session.js";
import type { TsFanout } from "./ts/ts-fanout.js";

/** How often a `stream.ts` viewer's seat is renewed (a lease lapses after 30 s). */
const LEASE_RENEW_MS = 10_000;

export const STREAM_HEAD = { "Content-Type": "video/mp2t", "Cache-Control": "no-store" } as const;

export interface StreamAnswerOptions {
  readonly build: Build;
  readonly withCors: boolean;
}

/** What a viewer keeps alive and counts its bytes in: a runtime session, or a relay. */
export interface StreamViewerHost {
  /** Called every second while the viewer waits or reads. */
  touch(): void;
  count(bytes: number): void;
}

/** A runtime session as a viewer's host, its bytes counted by `count`. */
export function sessionHost(
  session: RuntimeSession,
  count: (session: RuntimeSession | undefined, bytes: number) => void,
): StreamViewerHost {
  return { touch: () => session.touch(), count: (bytes) => count(session, bytes) };
}

/**
 * One `stream.ts` viewer (extensions "MPEG-TS output") of `host`: keeps the host
 * touched and the seat renewed while it waits and reads, waits for `fanoutOf` (which
 * waits for the channel and may refuse it), then writes what the fan-out hands it for as
 * long as the client reads. Every ingress answers through here, so viewer seats,
 * `bytes_out` and the access log count every viewer alike.
 */
export async function answerStream(
  c: Context<AppEnv>,
  o: StreamAnswerOptions,
  host: StreamViewerHost,
  fanoutOf: () => Promise<TsFanout | undefined>,
  lease?: () => void,
): Promise<Response> {
  let ticks = 0;
  // A viewer that only reads (or waits for the first segment) is a viewer: the session
  // stays up and its seat held.
  const keep = setInterval(() => {
    host.touch();
    if (++ticks % (LEASE_RENEW_MS / 1000) === 0) lease?.();
  }, 1000);
  let fanout: TsFanout | undefined;
  try {
    fanout = await fanoutOf();
  } catch (err) {
    clearInterval(keep);
    throw err;
  }
  if (fanout === undefined) {
    clearInterval(keep);
    throw new GatewayError("not_ready", "channel is starting", { headers: { "Retry-After": "2" } });
  }
  const out = c.env.outgoing;
  if (out.destroyed) {
    // The client left while the channel started: nobody to add.
    clearInterval(keep);
    return alreadySent(499);
  }
  writeDirectHead(
    c,
    o.build,
    200,
    { "content-type": STREAM_HEAD["Content-Type"], "cache-control": STREAM_HEAD["Cache-Control"] },
    o.withCors,
  );
  let closed = false;
  const leave = fanout.add({
    write(bytes) {
      if (closed) return 0;
      out.write(bytes);
      host.count(bytes.length);
      return out.writableLength;
    },
    close() {
      if (closed) return;
      closed = true;
      out.destroy();
    },
  });
  host.touch();
  out.once("close", () => {
    closed = true;
    clearInterval(keep);
    leave();
  });
  return alreadySent(200);
}
