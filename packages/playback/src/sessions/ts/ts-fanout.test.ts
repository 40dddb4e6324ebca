import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { packetPid } from "../../ts/ts-packet.js";
import { BACKLOG_BYTES, TsFanout, type TsViewerSink } from "./ts-fanout.js";

const packet = (pid: number, cc: number) => {
  const p = Buffer.alloc(188, 0xff);
  p.set([0x47, (pid >> 8) & 0x1f, pid & 0xff, 0x10 | cc], 0);
  return p;
};

/** A sink that records what it got and reports `queued` bytes as not yet read. */
function sink(queued = 0) {
  const s = {
    got: [] as Buffer[],
    closed: "",
    queued,
    write(b: Buffer) {
      s.got.push(b);
      return s.queued;
    },
    close(why: string) {
      s.closed = why;
    },
  };
  return s satisfies TsViewerSink & { got: Buffer[] };
}

const pids = (bytes: Buffer[]) => {
  const b = Buffer.concat(bytes);
  const out: number[] = [];
  for (let at = 0; at < b.length; at += 188) out.push(packetPid(b.subarray(at)));
  return out;
};

/** Breaks in each PID's continuity counter over what a viewer got (packets with payload). */
const breaks = (bytes: Buffer[]) => {
  const b = Buffer.concat(bytes);
  const last = new Map<number, number>();
  let n = 0;
  for (let at = 0; at < b.length; at += 188) {
    const pid = packetPid(b.subarray(at));
    const cc = b[at + 3]! & 0x0f;
    const prev = last.get(pid);
    if (prev !== undefined && cc !== ((prev + 1) & 0x0f)) n += 1;
    last.set(pid, cc);
  }
  return n;
};

describe("TsFanout", () => {
  it("a viewer waits for a join point, starts there, then follows live", () => {
    let jp: Buffer[] | undefined;
    const fan = new TsFanout({ joinPoint: () => jp, maxQueuedBytes: 1 << 20, maxBacklogMs: 1000 });
    const v = sink();
    fan.add(v);
    fan.push([packet(0x100, 0)]);
    assert.deepEqual(v.got, []);
    jp = [packet(0, 0), packet(0x1000, 0), packet(0x100, 1)];
    fan.push([packet(0x100, 1)]);
    fan.push([packet(0x101, 4)]);
    assert.deepEqual(pids(v.got), [0, 0x1000, 0x100, 0x101]);
  });

  it("after a reconnect a viewer waits for the new join point", () => {
    let jp: Buffer[] | undefined = [packet(0, 0), packet(0x100, 0)];
    const fan = new TsFanout({ joinPoint: () => jp, maxQueuedBytes: 1 << 20, maxBacklogMs: 1000 });
    const v = sink();
    fan.add(v);
    fan.discontinuity();
    jp = undefined;
    fan.push([packet(0x100, 9)]);
    assert.deepEqual(pids(v.got), [0, 0x100]);
    jp = [packet(0, 0), packet(0x100, 0)];
    fan.push([packet(0x100, 0)]);
    // Each PID's first packet after the switch follows a packet carrying the flag.
    assert.deepEqual(pids(v.got.slice(1)), [0, 0, 0x100, 0x100]);
  });

  it("drops a viewer over its queue bound, or behind for too long, and only that one", async () => {
    const jp = [packet(0x100, 0)];
    const fan = new TsFanout({ joinPoint: () => jp, maxQueuedBytes: 1 << 20, maxBacklogMs: 50 });
    const full = sink(2 << 20);
    const behind = sink(BACKLOG_BYTES + 1);
    const fine = sink(BACKLOG_BYTES);
    fan.add(full);
    fan.add(behind);
    fan.add(fine);
    assert.match(full.closed, /slow reader: more than 1048576 bytes/);
    assert.equal(fan.size, 2);
    await new Promise((r) => setTimeout(r, 80));
    fan.push([packet(0x100, 1)]);
    assert.match(behind.closed, /behind for more than/);
    assert.equal(fine.closed, "");
    assert.deepEqual([fan.size, fan.dropped], [1, 2]);
  });

  it("a viewer joining mid-stream gets the same buffers as the others, with no counter break", () => {
    // A source whose counters jump at a reconnect: the shared stream counts on.
    let jp: Buffer[] | undefined = [packet(0, 3), packet(0x100, 7), packet(0x101, 2)];
    const fan = new TsFanout({ joinPoint: () => jp, maxQueuedBytes: 1 << 20, maxBacklogMs: 1000 });
    const first = sink();
    fan.add(first);
    fan.push([packet(0x100, 8), packet(0x101, 3)]);
    fan.discontinuity();
    jp = [packet(0, 12), packet(0x100, 0), packet(0x101, 9)];
    fan.push([packet(0x100, 0), packet(0x101, 9)]);
    fan.push([packet(0x100, 1), packet(0, 13)]);
    // The join point now: a stale PAT copy, then the packets since the random-access point.
    jp = [packet(0, 12), packet(0x100, 0), packet(0x101, 9), packet(0x100, 1), packet(0, 13)];
    const late = sink();
    fan.add(late);
    fan.push([packet(0x100, 2), packet(0x101, 10), packet(0, 14)]);
    assert.equal(first.got.at(-1), late.got.at(-1), "one buffer for both viewers");
    assert.deepEqual(pids(late.got), [0, 0x100, 0x101, 0x100, 0, 0x100, 0x101, 0]);
    assert.equal(breaks(late.got), 0);
    const flagPackets = 3; // no packet had an adaptation field to carry the flag
    assert.equal(pids(first.got).length, 3 + 2 + 3 + flagPackets + 2 + 3);
  });

  it("after every viewer left, the next one starts a new stream at the join point", () => {
    const jp = [packet(0, 3), packet(0x100, 7)];
    const fan = new TsFanout({ joinPoint: () => jp, maxQueuedBytes: 1 << 20, maxBacklogMs: 1000 });
    const leave = fan.add(sink());
    fan.push([packet(0x100, 8)]);
    leave();
    fan.push([packet(0x100, 9)]);
    const next = sink();
    fan.add(next);
    assert.deepEqual(Buffer.concat(next.got), Buffer.concat(jp), "the source's own counters");
  });

  it("a stream that has sent nothing gives PAT and PMT at once, then its join point", () => {
    let jp: Buffer[] | undefined;
    let psi: Buffer[] | undefined;
    const fan = new TsFanout({
      joinPoint: () => jp,
      psi: () => psi,
      maxQueuedBytes: 1 << 20,
      maxBacklogMs: 1000,
    });
    const v = sink();
    fan.add(v);
    assert.deepEqual(v.got, [], "nothing known yet");
    psi = [packet(0, 4), packet(0x1000, 9)];
    fan.push([packet(0x100, 3)]);
    assert.deepEqual(pids(v.got), [0, 0x1000]);
    fan.push([packet(0x100, 4)]);
    assert.equal(v.got.length, 1, "PSI once");
    jp = [packet(0, 5), packet(0x1000, 10), packet(0x100, 5)];
    fan.push([packet(0x100, 5)]);
    fan.push([packet(0x100, 6)]);
    assert.deepEqual(pids(v.got), [0, 0x1000, 0, 0x1000, 0x100, 0x100]);
    assert.equal(breaks(v.got), 0);
  });
});
