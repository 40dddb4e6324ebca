import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";

/**
 * What a source of the origin does: `live` serves the live MPD and its segments; `frozen`
 * serves the MPD as it was when frozen (a source whose MPD stops advancing) while its
 * segments still answer; `static` serves the live MPD turned `type="static"`; a number
 * answers that status for everything.
 */
export type DashSourceMode = "live" | "frozen" | "static" | number;

export interface SwitchableDashOrigin {
  readonly url: string;
  /** Sets what source `name` (`/{name}/out.mpd` and the files beside it) does from now on. */
  set(name: string, mode: DashSourceMode): void;
  /** MPD requests source `name` answered so far. */
  mpdRequests(name: string): number;
  /** Other requests (init sections, segments) source `name` answered so far. */
  mediaRequests(name: string): number;
  stop(): Promise<void>;
}

/**
 * Several live DASH sources whose behaviour a test switches, all fed by one encoder
 * ({@link startDashLiveSource}: ClearKey CENC with `encrypt`, 1 s segments, 180p + one
 * audio language): source `name` is the encoder's MPD and segments under `/{name}/`.
 */
export async function startSwitchableDashOrigin(encrypt: {
  kid: string;
  key: string;
}): Promise<SwitchableDashOrigin> {
  const live: DashLiveSource = await startDashLiveSource({
    heights: [180],
    languages: ["eng"],
    segDurationSec: 1,
    fragDurationSec: 0,
    encrypt,
  });
  await live.waitForSegments(3);
  const modes = new Map<string, DashSourceMode>();
  const frozen = new Map<string, Buffer>();
  const mpds = new Map<string, number>();
  const media = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const m = /^\/([\w-]+)\/([\w.-]+)$/.exec(new URL(req.url ?? "/", "http://x").pathname);
    if (m === null) {
      res.writeHead(404).end();
      return;
    }
    const [, name, file] = m as unknown as [string, string, string];
    const mode = modes.get(name) ?? "live";
    const isMpd = file.endsWith(".mpd");
    const counts = isMpd ? mpds : media;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (typeof mode === "number") {
      res.writeHead(mode).end();
      return;
    }
    if (isMpd && mode === "frozen" && frozen.has(name)) {
      res.writeHead(200, { "content-type": "application/dash+xml" });
      res.end(frozen.get(name));
      return;
    }
    let upstream: Response;
    let body: Buffer;
    try {
      upstream = await fetch(`${live.origin}/dash/${file}`);
      body = Buffer.from(await upstream.arrayBuffer());
    } catch {
      // The encoder's origin is closing (the suite ends): no answer to relay.
      if (!res.headersSent) res.writeHead(502).end();
      return;
    }
    if (isMpd && mode === "frozen") frozen.set(name, body);
    if (isMpd && mode === "static") {
      res.writeHead(200, { "content-type": "application/dash+xml" });
      res.end(body.toString("utf8").replace(/\btype="dynamic"/, 'type="static"'));
      return;
    }
    res.writeHead(upstream.status, {
      "content-type": upstream.headers.get("content-type") ?? "application/octet-stream",
      "cache-control": "no-cache",
    });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set(name, mode) {
      modes.set(name, mode);
      if (mode !== "frozen") frozen.delete(name);
    },
    mpdRequests: (name) => mpds.get(name) ?? 0,
    mediaRequests: (name) => media.get(name) ?? 0,
    async stop() {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await live.stop();
    },
  };
}
