import { readFileSync } from "node:fs";
import { createServer, get as httpGet, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** What the origin did to one request (counted for the report). */
export type Fault = "none" | "stall" | "reset" | "burst5xx" | "truncated" | "slow";

export interface FaultOrigin {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly injected: Record<Fault, number>;
  close(): Promise<void>;
}

/** Per-request fault probabilities; 5xx bursts come on a schedule instead. */
export interface FaultMix {
  readonly stall: number;
  readonly reset: number;
  readonly truncated: number;
  readonly slow: number;
  /** Every `burstEveryMs`, for `burstMs`, half the requests answer 503. */
  readonly burstEveryMs: number;
  readonly burstMs: number;
}

export const DEFAULT_FAULTS: FaultMix = {
  stall: 0.01,
  reset: 0.01,
  truncated: 0.01,
  slow: 0.03,
  burstEveryMs: 45_000,
  burstMs: 4_000,
};

/** mulberry32: a seeded generator, so a run's fault sequence can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A loopback origin for the soak, with faults:
 * - `/hls/{channel}/live.m3u8`: a live HLS playlist (1 s segments, a window of 6) whose
 *   segments are ffmpeg-made TS files from `hlsRoot/vod`, served as `/hls/{channel}/{msn}.ts`;
 * - `/dash/…`: forwarded to a live DASH source (ffmpeg in real time);
 * and on every request, by chance or schedule: a stall (no answer until the client gives
 * up), a reset, a 503 burst, a body cut short of its Content-Length, or a slow body.
 */
export async function startFaultOrigin(options: {
  hlsRoot: string;
  dashOrigin: string;
  faults: FaultMix;
  seed: number;
}): Promise<FaultOrigin> {
  const segments = [0, 1, 2].map((i) => readFileSync(join(options.hlsRoot, "vod", `v0_${i}.ts`)));
  const random = seeded(options.seed);
  const started = Date.now();
  const injected: Record<Fault, number> = {
    none: 0,
    stall: 0,
    reset: 0,
    burst5xx: 0,
    truncated: 0,
    slow: 0,
  };
  const held = new Set<ServerResponse>();

  const pick = (): Fault => {
    const f = options.faults;
    const t = (Date.now() - started) % f.burstEveryMs;
    if (t > f.burstEveryMs - f.burstMs && random() < 0.5) return "burst5xx";
    let r = random();
    for (const k of ["stall", "reset", "truncated", "slow"] as const) {
      if (r < f[k]) return k;
      r -= f[k];
    }
    return "none";
  };

  /** Sends `head` then `body` with the chosen fault applied. */
  const send = (
    res: ServerResponse,
    fault: Fault,
    status: number,
    headers: Record<string, string>,
    body: Buffer,
  ) => {
    res.writeHead(status, headers);
    if (fault === "truncated") {
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      setTimeout(() => res.destroy(), 50);
    } else if (fault === "slow") {
      // 2 KiB every 100 ms: a 60 KiB segment takes ~3 s.
      let at = 0;
      const step = () => {
        if (res.destroyed) return;
        if (at >= body.length) return void res.end();
        res.write(body.subarray(at, at + 2048));
        at += 2048;
        setTimeout(step, 100);
      };
      step();
    } else res.end(body);
  };

  const hls = (res: ServerResponse, fault: Fault, channel: string, file: string) => {
    const now = Math.floor((Date.now() - started) / 1000) + 10;
    if (file === "live.m3u8") {
      const first = now - 6;
      const lines = [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        "#EXT-X-TARGETDURATION:2",
        `#EXT-X-MEDIA-SEQUENCE:${first}`,
      ];
      for (let n = first; n < now; n++) lines.push("#EXTINF:1.000,", `${n}.ts`);
      const body = Buffer.from(`${lines.join("\n")}\n`);
      return send(
        res,
        fault,
        200,
        { "content-type": "application/vnd.apple.mpegurl", "content-length": String(body.length) },
        body,
      );
    }
    const msn = /^(\d+)\.ts$/.exec(file);
    if (msn === null) return void res.writeHead(404).end();
    const body = segments[Number(msn[1]) % segments.length]!;
    send(
      res,
      fault,
      200,
      { "content-type": "video/mp2t", "content-length": String(body.length), "x-channel": channel },
      body,
    );
  };

  const dash = (req: IncomingMessage, res: ServerResponse, fault: Fault) => {
    const up = httpGet(`${options.dashOrigin}${req.url}`, (u) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(u.headers)) if (typeof v === "string") headers[k] = v;
      if (fault === "none" || u.statusCode !== 200) {
        res.writeHead(u.statusCode ?? 502, headers);
        u.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      u.on("data", (c: Buffer) => chunks.push(c));
      u.on("end", () => send(res, fault, 200, headers, Buffer.concat(chunks)));
      u.on("error", () => res.destroy());
    });
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    // UTCTiming (the clock) stays clean; playlists, the MPD and media get the faults.
    const fault = path === "/time" ? "none" : pick();
    injected[fault]++;
    if (fault === "stall") {
      held.add(res);
      res.on("close", () => held.delete(res));
      return; // no answer: the gateway's first-byte timeout must end it
    }
    if (fault === "reset") return void req.socket.destroy();
    if (fault === "burst5xx")
      return void res.writeHead(503, { "content-type": "text/plain" }).end("origin overloaded");
    const m = /^\/hls\/([a-z0-9-]+)\/([^/]+)$/.exec(path);
    if (m !== null) return hls(res, fault, m[1]!, m[2]!);
    dash(req, res, fault);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    injected,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of held) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
