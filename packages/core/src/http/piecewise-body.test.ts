import assert from "node:assert/strict";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Hono } from "hono";
import { piecewiseBody, piecewiseStream } from "./piecewise-body.js";
import { type RunningServer, startServer } from "./server.js";
import type { AppEnv } from "./types.js";

/** `n` pieces of 100 characters; `seen.rendered` counts those rendered, `seen.ended` the iterator's end. */
function* numbered(n: number, seen: { rendered: number; ended: boolean }) {
  try {
    for (let i = 0; i < n; i++) {
      seen.rendered += 1;
      yield `${String(i).padStart(9, "0")}${"x".repeat(90)}\n`;
    }
  } finally {
    seen.ended = true;
  }
}

async function bytesOf(body: string | ReadableStream<Uint8Array>): Promise<Buffer> {
  if (typeof body === "string") return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe("piecewiseBody", () => {
  const cases: [string, number][] = [
    ["no piece", 0],
    ["one piece", 1],
    ["just under one chunk", 655],
    ["one chunk and a bit", 656],
    ["many chunks", 10_000],
  ];
  for (const [name, n] of cases) {
    it(`${name}: the bytes of the joined pieces`, async () => {
      const seen = { rendered: 0, ended: false };
      const reference = [...numbered(n, { rendered: 0, ended: false })].join("");
      const body = piecewiseBody(numbered(n, seen));
      assert.equal(typeof body === "string", reference.length < 64 * 1024);
      assert.deepEqual(await bytesOf(body), Buffer.from(reference));
      assert.equal(seen.rendered, n);
      assert.equal(seen.ended, true);
    });
  }

  it("renders nothing ahead of a read beyond the first chunk", async () => {
    const seen = { rendered: 0, ended: false };
    const body = piecewiseBody(numbered(10_000, seen));
    assert.ok(typeof body !== "string");
    assert.equal(seen.rendered, 656);
    const reader = body.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(seen.rendered, 656);
    await reader.read();
    assert.equal(seen.rendered, 656 * 2);
    await reader.cancel();
    assert.equal(seen.ended, true);
  });

  it("piecewiseStream: a stream even when the answer fits one chunk, the same bytes", async () => {
    for (const n of [0, 3, 10_000]) {
      const seen = { rendered: 0, ended: false };
      const body = piecewiseStream(numbered(n, seen));
      assert.ok(body instanceof ReadableStream);
      assert.equal(seen.rendered, 0);
      const reference = [...numbered(n, { rendered: 0, ended: false })].join("");
      assert.deepEqual(await bytesOf(body), Buffer.from(reference));
      assert.equal(seen.ended, true);
    }
  });

  it("lets the event loop turn between chunks, however fast they are read (issue 30 item 1)", async () => {
    let turns = 0;
    let reading = true;
    const tick = () => {
      turns += 1;
      if (reading) setImmediate(tick);
    };
    setImmediate(tick);
    // Read back to back, as the server does when the socket takes every chunk at once; a
    // turn after every chunk (no time budget), so that the count does not depend on speed.
    const reader = piecewiseStream(
      numbered(100, { rendered: 0, ended: false }),
      1000,
      0,
    ).getReader();
    let chunks = 0;
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      chunks += 1;
    }
    reading = false;
    assert.equal(chunks, 10);
    assert.ok(turns >= chunks - 2, `${turns} turns of the event loop for ${chunks} chunks`);
  });

  it("keeps multi-byte characters whole across chunks", async () => {
    const pieces = Array.from({ length: 5_000 }, (_, i) => `${i}: Ünïcödé 📺 "\\n"\n`);
    assert.deepEqual(
      await bytesOf(piecewiseBody(pieces[Symbol.iterator]())),
      Buffer.from(pieces.join("")),
    );
  });
});

// Through the real HTTP stack (@hono/node-server on loopback): a reader that stops reading
// holds the rendering at the socket's pace; one that goes away ends it.
describe("piecewiseBody answers over HTTP", () => {
  const TOTAL = 200_000; // 20 MB of pieces
  const HUGE = 1_000_000; // 100 MB: more than loopback socket buffers take (a few MB each side)
  let seen = { rendered: 0, ended: false };
  let server: RunningServer;
  before(async () => {
    const app = new Hono<AppEnv>();
    app.get("/big", (c) => {
      seen = { rendered: 0, ended: false };
      return c.body(piecewiseBody(numbered(TOTAL, seen)), 200, { "Content-Type": "text/plain" });
    });
    app.get("/huge", (c) => {
      seen = { rendered: 0, ended: false };
      return c.body(piecewiseBody(numbered(HUGE, seen)), 200);
    });
    app.get("/small", (c) => c.body(piecewiseBody(numbered(3, seen)), 200));
    server = await startServer(app, "127.0.0.1:0");
  });
  after(() => server.close(0));

  const get = (path: string) =>
    new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
      const { port } = server.server.address() as AddressInfo;
      request({ host: "127.0.0.1", port, path }, resolve).on("error", reject).end();
    });

  it("answers a small body with Content-Length, a large one chunked", async () => {
    const small = await get("/small");
    assert.equal(small.headers["content-length"], "300");
    small.resume();
    const big = await get("/big");
    assert.equal(big.headers["content-length"], undefined);
    assert.equal(big.headers["transfer-encoding"], "chunked");
    let bytes = 0;
    for await (const chunk of big) bytes += (chunk as Buffer).length;
    assert.equal(bytes, TOTAL * 100);
    assert.equal(seen.ended, true);
  });

  it("stops rendering while the client does not read, and ends when it goes away", async () => {
    const res = await get("/huge");
    res.pause();
    // Until the sockets' kernel buffers are full: an answer renders at most ~8 ms per turn of
    // the event loop, so on a loaded machine filling them can take longer than one wait.
    let held = -1;
    for (let waits = 0; waits < 30 && seen.rendered !== held; waits++) {
      held = seen.rendered;
      await new Promise((r) => setTimeout(r, 300));
    }
    held = seen.rendered;
    await new Promise((r) => setTimeout(r, 300));
    // What was rendered sits in the sockets' kernel buffers; the rest waits for the reader.
    assert.equal(seen.rendered, held);
    assert.ok(held < HUGE / 4, `rendered ${held} of ${HUGE} pieces for a paused client`);
    res.destroy();
    const deadline = Date.now() + 5_000;
    while (!seen.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(seen.ended, true);
    assert.ok(seen.rendered < HUGE / 4);
  });
});
