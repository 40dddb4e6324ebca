import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ContinuityRewriter } from "./continuity-rewriter.js";
import { readPacketHeader } from "./ts-packet.js";

/** A packet of `pid` with counter `cc`; `af` adds a one-byte adaptation field. */
function packet(pid: number, cc: number, o: { af?: boolean; payload?: boolean } = {}): Buffer {
  const p = Buffer.alloc(188, 0xff);
  const control = (o.af ? 0x20 : 0) | (o.payload === false ? 0 : 0x10);
  p.set([0x47, (pid >> 8) & 0x1f, pid & 0xff, control | cc], 0);
  if (o.af) p.set([1, 0x00], 4);
  return p;
}

const view = (packets: Buffer[]) =>
  packets.map((p) => {
    const h = readPacketHeader(p);
    return [h.pid, h.continuityCounter, h.discontinuity];
  });

describe("ContinuityRewriter", () => {
  it("keeps a continuous source as it is, without copies", () => {
    const cc = new ContinuityRewriter();
    const input = [packet(0x100, 14), packet(0x100, 15), packet(0x100, 0), packet(0x101, 3)];
    const out = cc.rewrite(input);
    assert.deepEqual(
      out.map((p, i) => p === input[i]),
      [true, true, true, true],
    );
  });

  it("counts on across a join: repeated PAT copies and a jump back", () => {
    const cc = new ContinuityRewriter();
    const out = cc.rewrite([packet(0, 5), packet(0x100, 9), packet(0, 5), packet(0x100, 2)]);
    assert.deepEqual(view(out), [
      [0, 5, false],
      [0x100, 9, false],
      [0, 6, false],
      [0x100, 10, false],
    ]);
  });

  it("a packet without payload keeps the counter; null packets are dropped", () => {
    const cc = new ContinuityRewriter();
    const out = cc.rewrite([
      packet(0x100, 1),
      packet(0x100, 7, { af: true, payload: false }),
      packet(0x1fff, 0),
      packet(0x100, 9),
    ]);
    assert.deepEqual(view(out), [
      [0x100, 1, false],
      [0x100, 1, false],
      [0x100, 2, false],
    ]);
  });

  it("after a switch, flags each PID once: in its adaptation field or in a packet before it", () => {
    const cc = new ContinuityRewriter();
    cc.rewrite([packet(0x100, 3), packet(0x101, 8)]);
    cc.discontinuity();
    const out = cc.rewrite([
      packet(0x100, 0, { af: true }),
      packet(0x101, 0),
      packet(0x100, 1),
      packet(0x101, 1),
    ]);
    assert.deepEqual(view(out), [
      [0x100, 4, true],
      [0x101, 8, true],
      [0x101, 9, false],
      [0x100, 5, false],
      [0x101, 10, false],
    ]);
  });

  it("aligns a late viewer's join point to where the stream is, leaving the stream as it is", () => {
    const cc = new ContinuityRewriter();
    cc.rewrite([packet(0, 1), packet(0x100, 4)]);
    cc.discontinuity();
    cc.rewrite([packet(0x100, 11, { af: true }), packet(0x100, 12)]); // 5 and 6 on the stream
    const join = cc.joinAligned([
      packet(0, 9),
      packet(0x100, 11),
      packet(0x100, 3, { af: true, payload: false }),
      packet(0x1fff, 0),
      packet(0x100, 12),
    ]);
    assert.deepEqual(view(join), [
      [0, 1, false],
      [0x100, 5, false],
      [0x100, 5, false],
      [0x100, 6, false],
    ]);
    // The stream still owes PAT its discontinuity flag (a flag packet: no adaptation field).
    assert.deepEqual(view(cc.rewrite([packet(0x100, 13), packet(0, 10)])), [
      [0x100, 7, false],
      [0, 1, true],
      [0, 2, false],
    ]);
  });
});
