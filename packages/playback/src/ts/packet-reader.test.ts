import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { packet } from "@svc/test-kits/ts-builder";
import { PacketReader } from "./packet-reader.js";
import { packetPid } from "./ts-packet.js";

const pkts = (n: number) =>
  Array.from({ length: n }, (_, i) => packet({ pid: 0x100 + i, payload: Buffer.alloc(184, i) }));
const pidsOf = (ps: Buffer[]) => ps.map(packetPid);

/** Pushes `bytes` in chunks of `step` and gathers packets or the refusal. */
function read(bytes: Buffer, step: number) {
  const r = new PacketReader();
  const got: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += step) {
    const x = r.push(bytes.subarray(i, i + step));
    if (!x.ok) return { refused: x.reason, got };
    got.push(...x.packets);
  }
  got.push(...r.flush());
  return { refused: r.refusalAtEnd(), got, dropped: r.droppedBytes };
}

describe("PacketReader", () => {
  const six = Buffer.concat(pkts(6));
  const cases: { name: string; bytes: Buffer; pids: number[]; dropped?: number }[] = [
    { name: "clean packets", bytes: six, pids: [0x100, 0x101, 0x102, 0x103, 0x104, 0x105] },
    {
      name: "leading garbage before the grid",
      bytes: Buffer.concat([Buffer.from("garbage G G G"), six]),
      pids: [0x100, 0x101, 0x102, 0x103, 0x104, 0x105],
    },
    {
      name: "garbage inside the stream (resync)",
      bytes: Buffer.concat([six.subarray(0, 376), Buffer.alloc(50, 0x47), six.subarray(376)]),
      pids: [0x100, 0x101, 0x102, 0x103, 0x104, 0x105],
      dropped: 50,
    },
  ];
  for (const c of cases)
    for (const step of [1, 7, 188, 1000, 100_000])
      it(`${c.name}, chunks of ${step}`, () => {
        const r = read(c.bytes, step);
        assert.equal(r.refused, undefined);
        assert.deepEqual(pidsOf(r.got), c.pids);
        for (const p of r.got) assert.equal(p.length, 188);
        if (c.dropped !== undefined) assert.equal(r.dropped, c.dropped);
      });

  const refusals: [string, Buffer, RegExp][] = [
    ["an HLS playlist", Buffer.from("#EXTM3U\n#EXT-X-VERSION:3\n".repeat(4000)), /HLS playlist/],
    ["an HTML page", Buffer.from("<!DOCTYPE html><html>".repeat(4000)), /HTML page/],
    ["an MPD", Buffer.from('<?xml version="1.0"?><MPD>'.repeat(4000)), /XML/],
    [
      "random bytes",
      Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 71)),
      /no MPEG-TS sync bytes/,
    ],
  ];
  for (const [name, bytes, want] of refusals)
    it(`refuses ${name} with a reason`, () => {
      const r = read(bytes, 4096);
      assert.match(r.refused ?? "", want);
      assert.equal(r.got.length, 0);
    });

  it("names a short non-TS answer at its end", () => {
    const r = read(Buffer.from("#EXTM3U\n#EXTINF:2,\na.ts\n"), 5);
    assert.match(r.refused ?? "", /HLS playlist/);
  });
  it("reads a long chunk in place after a carried partial packet", () => {
    const many = Buffer.concat(pkts(40));
    const r = new PacketReader();
    const first = r.push(many.subarray(0, 300));
    const chunk = Buffer.from(many.subarray(300));
    const second = r.push(chunk);
    assert.ok(first.ok && second.ok);
    const got = [...first.packets, ...second.packets, ...r.flush()];
    assert.deepEqual(
      pidsOf(got),
      Array.from({ length: 40 }, (_, i) => 0x100 + i),
    );
    // The packets past the joined head are views of the chunk, not copies.
    const views = second.packets.filter((p) => p.buffer === chunk.buffer);
    assert.ok(views.length >= 35, `${views.length} packets read in place`);
  });
  it("resyncs in long chunks with garbage across their edges", () => {
    const many = Buffer.concat(pkts(40));
    const bytes = Buffer.concat([many.subarray(0, 1900), Buffer.alloc(70, 0), many.subarray(1900)]);
    for (const step of [900, 1000, 3001]) {
      const r = read(bytes, step);
      assert.equal(r.refused, undefined);
      // The packet the garbage cut is lost; every other one arrives whole and in order.
      const want = Array.from({ length: 40 }, (_, i) => 0x100 + i).filter((_, i) => i !== 10);
      assert.deepEqual(pidsOf(r.got), want, `chunks of ${step}`);
    }
  });
  it("an empty answer", () =>
    assert.equal(new PacketReader().refusalAtEnd(), "the source sent no bytes"));
});
