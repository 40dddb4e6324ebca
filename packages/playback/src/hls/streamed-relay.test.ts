import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, get as httpGet, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { RunningServer } from "@svc/core/http";
import {
  loopbackEgress,
  runtimeOptions,
  startTestServer,
  testConfig,
} from "@svc/test-kits/playback-fixture";
import { createPlayRoutes } from "../play-routes.js";
import { createPlaybackRuntime, type PlaybackRuntime } from "../playback-runtime.js";

// A `u/` segment with `Range` is streamed per request (`pipeBody`): an upstream that dies
// mid-body cuts the player off and counts one upstream error; a player that goes away
// aborts the upstream request at once; a player that stops reading stops the upstream
// read, and gets every byte in order when it reads again.
const BIG_CHUNK = 64 * 1024;
const BIG_CHUNKS = 1024; // 64 MiB
const bigChunk = (i: number) => {
  const b = Buffer.alloc(BIG_CHUNK, i % 251);
  b.writeUInt32BE(i, 0);
  return b;
};
describe("streamed u/ relay: failures on either side", () => {
  let origin: Server;
  let gateway: RunningServer;
  let rt: PlaybackRuntime;
  /** Resolves when the origin sees the slow request's connection close. */
  let slowClosed: Promise<void>;
  /** Bytes of /big.ts the origin has handed to its socket so far. */
  let bigFlushed = 0;
  const bigHash = createHash("sha256");
  const egress = loopbackEgress(10_000);

  before(async () => {
    let closed: () => void = () => undefined;
    slowClosed = new Promise((r) => {
      closed = r;
    });
    origin = createServer((req, res) => {
      if (req.url === "/live.m3u8") {
        res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
        res.end(
          "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ndies.ts\n#EXTINF:2,\nslow.ts\n#EXTINF:2,\nbig.ts\n",
        );
        return;
      }
      if (req.url === "/big.ts") {
        const total = BIG_CHUNK * BIG_CHUNKS;
        res.writeHead(206, {
          "content-type": "video/mp2t",
          "content-length": String(total),
          "content-range": `bytes 0-${total - 1}/${total}`,
        });
        let i = 0;
        const pump = () => {
          while (i < BIG_CHUNKS) {
            const chunk = bigChunk(i++);
            bigHash.update(chunk);
            const more = res.write(chunk, () => {
              bigFlushed += chunk.length;
            });
            if (!more) return void res.once("drain", pump);
          }
          res.end();
        };
        pump();
        return;
      }
      res.writeHead(206, {
        "content-type": "video/mp2t",
        "content-length": String(4 << 20),
        "content-range": `bytes 0-${(4 << 20) - 1}/${4 << 20}`,
      });
      res.write(Buffer.alloc(64 * 1024, 1));
      if (req.url === "/dies.ts") setTimeout(() => res.socket?.destroy(), 50);
      else req.socket.once("close", () => closed());
    });
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
    const src = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    const config = testConfig(
      [{ id: "ch", title: "ch", ingress: "hls", source_url: `${src}/live.m3u8` }],
      { play_require_auth: false },
    );
    rt = createPlaybackRuntime(
      runtimeOptions(config, { egress, build: "lite", signingKey: "relay-test-key" }),
    );
    gateway = await startTestServer(config, "lite", {
      "/v1/play": createPlayRoutes(rt, {
        resolveGrant: async () => ({
          channels: null,
          pathPrefix: "/v1/play",
          urlQuery: "",
          open: true,
        }),
      }),
    });
  });
  after(async () => {
    await gateway.close(100);
    await egress.close();
    origin.close();
  });

  const segmentUrl = async (name: string) => {
    const text = await (await fetch(`${gateway.url}/v1/play/ch/index.m3u8`)).text();
    const lines = text.split("\n").filter((l) => l.startsWith("http"));
    return lines[["dies", "slow", "big"].indexOf(name)]!;
  };

  it("cuts the player off and counts an upstream error when the upstream dies mid-body", async () => {
    const before = rt.stats.errors;
    const r = await fetch(await segmentUrl("dies"), { headers: { range: "bytes=0-" } });
    assert.equal(r.status, 206);
    await assert.rejects(r.arrayBuffer(), "the body must not end as if complete");
    for (let i = 0; i < 50 && rt.stats.errors === before; i++)
      await new Promise((res) => setTimeout(res, 20));
    assert.equal(rt.stats.errors, before + 1);
  });

  it("aborts the upstream request when the player goes away", async () => {
    const before = rt.stats.errors;
    const ac = new AbortController();
    const r = await fetch(await segmentUrl("slow"), {
      headers: { range: "bytes=0-" },
      signal: ac.signal,
    });
    assert.equal(r.status, 206);
    const reader = r.body!.getReader();
    await reader.read();
    ac.abort();
    const timeout = new Promise((_, reject) =>
      setTimeout(() => reject(new Error("upstream request still open after 2 s")), 2000),
    );
    await Promise.race([slowClosed, timeout]);
    assert.equal(rt.stats.errors, before, "a player leaving is not an upstream error");
  });
  it("stops reading the upstream while the player does not read, and loses no byte", async () => {
    const url = new URL(await segmentUrl("big"));
    const got = createHash("sha256");
    let received = 0;
    const res = await new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
      httpGet(url, { headers: { range: "bytes=0-" } }, resolve).once("error", reject);
    });
    assert.equal(res.statusCode, 206);
    const first = await new Promise<Buffer>((resolve) => res.once("data", resolve));
    res.pause();
    got.update(first);
    received += first.length;
    // Sockets on both sides buffer a few MiB each; the gateway holds at most one
    // event-loop turn of reads. Without backpressure it would read all 64 MiB.
    await new Promise((r) => setTimeout(r, 800));
    const flushedWhilePaused = bigFlushed;
    assert.ok(
      flushedWhilePaused < 32 * 1024 * 1024,
      `the origin sent ${flushedWhilePaused} bytes while the player read none`,
    );
    await new Promise<void>((resolve, reject) => {
      res.on("data", (chunk: Buffer) => {
        got.update(chunk);
        received += chunk.length;
      });
      res.once("end", resolve);
      res.once("error", reject);
      res.resume();
    });
    assert.equal(received, BIG_CHUNK * BIG_CHUNKS);
    assert.equal(got.digest("hex"), bigHash.digest("hex"), "every byte, in order");
  });
});
