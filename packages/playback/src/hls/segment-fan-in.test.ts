import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import type { Channel } from "@svc/core/catalog";
import { createEgress } from "@svc/core/egress";
import { createPlaybackStats } from "../delivery/playback-stats.js";
import { createSegmentFanIn } from "./segment-fan-in.js";

// A real loopback origin and the real egress: only 127.0.0.1 is contacted.
const BODY = Buffer.alloc(300_000, 7);
const channel = { id: "ch", revision: 1, headers: {}, user_agent: "" } as unknown as Channel;

function sink(): { out: ServerResponse; done: Promise<Buffer> } {
  const chunks: Buffer[] = [];
  let resolve!: (b: Buffer) => void;
  let reject!: (e: Error) => void;
  const done = new Promise<Buffer>((a, b) => {
    resolve = a;
    reject = b;
  });
  const w = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk, _enc, cb) {
      chunks.push(chunk);
      setImmediate(cb); // a slow-ish reader: exercises drain
    },
  });
  w.on("finish", () => resolve(Buffer.concat(chunks)));
  w.on("close", () => {
    if (!w.writableFinished) reject(new Error("destroyed"));
  });
  return { out: w as unknown as ServerResponse, done };
}

describe("segment fan-in", () => {
  let server: Server;
  let base: string;
  let hits = 0;
  let aborted = 0;
  before(async () => {
    server = createServer((req, res) => {
      hits += 1;
      res.on("close", () => {
        if (!res.writableFinished) aborted += 1;
      });
      const chunked = req.url === "/chunked";
      res.writeHead(
        200,
        chunked
          ? { "content-type": "video/mp2t" }
          : { "content-type": "video/mp2t", "content-length": String(BODY.length) },
      );
      if (req.url === "/endless") {
        res.write(BODY.subarray(0, 1000));
        return;
      }
      setTimeout(() => res.end(BODY), 100);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const egress = createEgress({
    allowedHosts: ["127.0.0.1"],
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
  });
  after(() => egress.close());
  /** A fan-in on the loopback origin: bodies up to 1 MiB shared, within `budgetBytes` (1 MiB). */
  const fanInOf = (stats = createPlaybackStats(), budgetBytes = 1 << 20) =>
    createSegmentFanIn({
      egress,
      stats,
      budgetBytes,
      maxEntryBytes: 1 << 20,
      credentialOrigin: () => base,
    });

  it("serves identical concurrent requests from one upstream fetch and then frees the memory", async () => {
    const stats = createPlaybackStats();
    const fanIn = fanInOf(stats);
    const before = hits;
    const subs = Array.from({ length: 5 }, () => fanIn.join(channel, `${base}/seg.ts`));
    const bodies = await Promise.all(
      subs.map(async (sub) => {
        const outcome = await sub.outcome;
        assert.equal(outcome.kind, "stream");
        const s = sink();
        sub.pipeTo(s.out);
        return s.done;
      }),
    );
    for (const b of bodies) assert.ok(b.equals(BODY));
    assert.equal(hits - before, 1);
    assert.equal(stats.bytesIn, BODY.length);
    assert.equal(stats.bytesOut, BODY.length * 5);
    assert.equal(fanIn.heldBytes, 0);
  });

  it("hands a viewer everything held so far in one write, not one write per upstream chunk", async () => {
    const fanIn = fanInOf();
    const first = fanIn.join(channel, `${base}/seg.ts`);
    const late = fanIn.join(channel, `${base}/seg.ts`);
    assert.equal((await first.outcome).kind, "stream");
    assert.equal((await late.outcome).kind, "stream");
    const a = sink();
    first.pipeTo(a.out);
    assert.ok((await a.done).equals(BODY));
    // The whole body is held now, in the pieces the upstream socket delivered it in.
    const batches: number[] = [];
    const got: Buffer[] = [];
    const done = new Promise<void>((resolve) => {
      const w = new Writable({
        highWaterMark: 16 * 1024,
        writev(chunks, cb) {
          batches.push(chunks.length);
          for (const c of chunks) got.push(c.chunk as Buffer);
          setImmediate(cb);
        },
        write(chunk, _enc, cb) {
          batches.push(1);
          got.push(chunk);
          setImmediate(cb);
        },
      });
      w.on("finish", () => resolve());
      late.pipeTo(w as unknown as ServerResponse);
    });
    await done;
    assert.ok(Buffer.concat(got).equals(BODY));
    assert.ok(got.length > 1, "the 300 kB body arrived in more than one piece");
    assert.deepEqual(batches, [got.length], "every held piece went out in one writev");
    assert.equal(fanIn.heldBytes, 0);
  });

  it("does not share what would exceed the budget or has no length", async () => {
    const stats = createPlaybackStats();
    const small = fanInOf(stats, 100_000);
    const a = small.join(channel, `${base}/big.ts`);
    assert.equal((await a.outcome).kind, "solo");
    const taken = a.take();
    assert.ok(taken !== undefined);
    assert.equal(a.take(), undefined, "the upstream answer goes to one caller only");
    taken.response.body.destroy();
    a.leave();
    const fanIn = fanInOf(stats);
    const b = fanIn.join(channel, `${base}/chunked`);
    assert.equal((await b.outcome).kind, "solo");
    b.take()?.response.body.destroy();
    b.leave();
    assert.equal(fanIn.heldBytes, 0);
  });

  it("aborts the upstream fetch when its last viewer leaves", async () => {
    const fanIn = fanInOf();
    const before = aborted;
    const subs = [fanIn.join(channel, `${base}/endless`), fanIn.join(channel, `${base}/endless`)];
    for (const s of subs) assert.equal((await s.outcome).kind, "stream");
    subs[0]!.leave();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(aborted, before, "one viewer is still watching");
    subs[1]!.leave();
    const until = Date.now() + 5000;
    while (aborted === before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(aborted, before + 1);
    assert.equal(fanIn.heldBytes, 0);
  });
});
