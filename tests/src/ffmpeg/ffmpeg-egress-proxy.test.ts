import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createEgressProxy, type EgressProxy } from "@svc/core/egress";
import { startFfmpegSession, stopAllFfmpegSessions } from "@svc/playback/ffmpeg-engine";
import {
  type DashSource,
  startDashSource,
  startOrigin,
  waitFor,
} from "../harness/ffmpeg-dash-origin.js";

// ffmpeg fetches a live DASH source through the gateway's egress proxy (`-http_proxy`).
// Only 127.0.0.1 is bound or contacted; the refused case is refused by the guard itself.
const timeouts = { connectMs: 2_000, firstByteMs: 10_000, idleMs: 10_000 };

interface Tap {
  /** The proxy URL, credential included, pointing at the tap. */
  readonly url: string;
  /** Absolute-form targets of the requests that carried the proxy credential. */
  readonly authorized: string[];
  close(): void;
}

/** A TCP pass-through in front of the proxy that reads every request head ffmpeg sends. */
async function startTap(proxy: EgressProxy): Promise<Tap> {
  const authorized: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(proxy.port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once("close", () => sockets.delete(s));
    }
    let text = "";
    client.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      for (let end = text.indexOf("\r\n\r\n"); end >= 0; end = text.indexOf("\r\n\r\n")) {
        const head = text.slice(0, end);
        text = text.slice(end + 4);
        const target = /^[A-Z]+ (\S+) HTTP\/1\.1\r\n/.exec(head)?.[1];
        if (target !== undefined && /^proxy-authorization: basic /im.test(head))
          authorized.push(target);
      }
    });
    client.pipe(upstream).on("error", () => client.destroy());
    upstream.pipe(client).on("error", () => upstream.destroy());
  });
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: proxy.url.replace(/:\d+$/, `:${port}`),
    authorized,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

describe("ffmpeg compatibility engine behind the egress proxy", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-proxy-"));
  const dataDir = join(root, "data");
  let source: DashSource;
  let proxy: EgressProxy;

  before(async () => {
    source = await startDashSource(join(root, "origin"));
    proxy = await createEgressProxy({ allowedHosts: ["127.0.0.1"], timeouts });
  });
  after(async () => {
    await stopAllFfmpegSessions();
    await source?.stop();
    await proxy?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("fetches the MPD and every init and media segment through the proxy", async () => {
    const origin = await startOrigin(join(root, "origin"));
    const tap = await startTap(proxy);
    try {
      const r = await startFfmpegSession({
        ffmpegPath: "ffmpeg",
        dataDir,
        channelId: "proxied",
        generation: 1,
        source: { url: `${origin.url}/live/manifest.mpd`, httpProxy: tap.url },
        output: { segmentSeconds: 1, listSize: 4 },
      });
      assert.ok(r.ok, r.ok ? "" : r.error);
      const session = r.value;
      // The origin keeps its last 500 requests and live DASH refetches the MPD often: keep
      // every path seen while waiting.
      const seen = new Set<string>();
      const ok = await waitFor(() => {
        for (const q of origin.requests) seen.add(q.path);
        const pl = existsSync(session.playlistPath)
          ? readFileSync(session.playlistPath, "utf8")
          : "";
        return (pl.match(/^#EXTINF/gm) ?? []).length >= 3;
      }, 45_000);
      assert.ok(ok, `no playlist through the proxy: ${JSON.stringify(session.status())}`);
      const command = session.status().command.join(" ");
      await session.stop();

      for (const q of origin.requests) seen.add(q.path);
      assert.ok(
        [...seen].some((p) => p.endsWith(".mpd")),
        "MPD",
      );
      assert.ok(
        [...seen].some((p) => /\/init-stream\d+\.m4s$/.test(p)),
        "init segment",
      );
      const media = [...seen].filter((p) => /\/chunk-stream\d+-\d+\.m4s$/.test(p));
      assert.ok(media.length >= 3, "media segments");
      // Every request the origin answered was one ffmpeg sent to the proxy, credential and
      // all: a request that went around it would be counted here and not there. (The
      // origin's list is the latest part of what the tap saw in full.)
      const paths = origin.requests.map((q) => q.path);
      const through = tap.authorized.map((t) => {
        const u = new URL(t);
        assert.equal(u.origin, origin.url);
        return u.pathname;
      });
      for (const p of new Set(paths)) {
        const direct = paths.filter((x) => x === p).length;
        const relayed = through.filter((x) => x === p).length;
        assert.ok(direct <= relayed, `${p}: ${direct} at the origin, ${relayed} via the proxy`);
      }
      const password = new URL(proxy.url).password;
      assert.match(command, /-http_proxy http:\/\/\[redacted\]@127\.0\.0\.1:\d+ /);
      assert.match(command, /-protocol_whitelist http,https,tcp,tls,httpproxy -i /);
      assert.equal(command.includes(password), false, "proxy credential leaked into status");
    } finally {
      tap.close();
      await origin.close();
    }
  });

  it("a source whose host the guard refuses fails in ffmpeg; nothing reaches the origin", async () => {
    const origin = await startOrigin(join(root, "origin"));
    const strict = await createEgressProxy({ allowedHosts: [], timeouts });
    try {
      const r = await startFfmpegSession({
        ffmpegPath: "ffmpeg",
        dataDir,
        channelId: "refused",
        generation: 1,
        source: { url: `${origin.url}/live/manifest.mpd`, httpProxy: strict.url },
        supervision: { backoff: { initialMs: 100, factor: 2, maxMs: 400 } },
      });
      assert.ok(r.ok, r.ok ? "" : r.error);
      const session = r.value;
      assert.ok(
        await waitFor(() => session.status().runs >= 2, 30_000),
        JSON.stringify(session.status()),
      );
      const status = session.status();
      await session.stop();
      assert.equal(status.running_since, null);
      assert.match(
        status.last_error ?? "",
        /HTTP error 403 Forbidden \(egress guard: target address is loopback\)/,
      );
      assert.equal(JSON.stringify(status).includes(new URL(strict.url).password), false);
      assert.deepEqual(origin.requests, []);
    } finally {
      await strict.close();
      await origin.close();
    }
  });
});
