import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { program } from "@svc/test-kits/ts-builder";
import { PTS_WRAP, readPesHeader } from "./pes.js";
import { SegmentCutter, type TsSegment } from "./segment-cutter.js";
import { packetPid } from "./ts-packet.js";

/** PIDs of a segment's packets and the PTS of its first video PES. */
function shape(seg: TsSegment) {
  const pids: number[] = [];
  let firstVideoPts: number | undefined;
  for (let i = 0; i < seg.bytes.length; i += 188) {
    const p = seg.bytes.subarray(i, i + 188);
    const pid = packetPid(p);
    pids.push(pid);
    if (pid === 0x100 && firstVideoPts === undefined) {
      const off = p[3]! & 0x20 ? 5 + p[4]! : 4;
      firstVideoPts = readPesHeader(p.subarray(off))?.pts;
    }
  }
  return { pids, firstVideoPts };
}

function cut(packets: Buffer[], targetSec: number, chunk = 5): TsSegment[] {
  const c = new SegmentCutter({ targetSec });
  const out: TsSegment[] = [];
  for (let i = 0; i < packets.length; i += chunk) out.push(...c.push(packets.slice(i, i + chunk)));
  out.push(...c.discontinuity());
  return out;
}

describe("SegmentCutter", () => {
  const cases: {
    name: string;
    input: Parameters<typeof program>[0];
    target: number;
    durations: number[];
    discontinuities?: boolean[];
  }[] = [
    {
      name: "cuts at every IDR at the target",
      input: { frames: 50, gop: 10, startPts: 0 },
      target: 0.4,
      durations: [0.4, 0.4, 0.4, 0.4, 0.4],
    },
    {
      name: "waits for the first IDR at or after the target",
      input: { frames: 50, gop: 10, startPts: 0 },
      target: 0.5,
      durations: [0.8, 0.8, 0.4],
    },
    {
      name: "drops what comes before the first IDR",
      input: { frames: 25, gop: 10, startPts: 900, firstIdrAt: 5 },
      target: 0.4,
      durations: [0.4, 0.4],
    },
    {
      name: "random_access_indicator alone marks an IDR",
      input: { frames: 30, gop: 10, startPts: 0, idrByRaiOnly: true },
      target: 0.4,
      durations: [0.4, 0.4, 0.4],
    },
    {
      name: "durations across the 2^33 wrap",
      input: { frames: 40, gop: 10, startPts: PTS_WRAP - 36_000 },
      target: 0.4,
      durations: [0.4, 0.4, 0.4, 0.4],
      discontinuities: [false, false, false, false],
    },
    {
      name: "a PTS jump ends the segment and flags the next",
      input: { frames: 40, gop: 10, startPts: 0, jumpAtFrame: 20, jumpTicks: 90_000 * 100 },
      target: 0.4,
      durations: [0.4, 0.4, 0.4, 0.4],
      discontinuities: [false, false, true, false],
    },
    {
      name: "a jump back mid-GOP: the rest up to the next IDR is dropped",
      input: { frames: 40, gop: 10, startPts: 900_000, jumpAtFrame: 15, jumpTicks: -90_000 * 5 },
      target: 0.4,
      durations: [0.4, 0.2, 0.4, 0.4],
      discontinuities: [false, false, true, false],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const packets = program(c.input);
      const segs = cut(packets, c.target);
      assert.deepEqual(
        segs.map((s) => Number(s.durationSec.toFixed(5))),
        c.durations,
      );
      if (c.discontinuities)
        assert.deepEqual(
          segs.map((s) => s.discontinuity),
          c.discontinuities,
        );
      for (const s of segs) {
        const { pids, firstVideoPts } = shape(s);
        assert.deepEqual(pids.slice(0, 2), [0, 0x1000], "PAT and PMT first");
        assert.equal(firstVideoPts, s.startPts, "starts at its first access unit");
        assert.equal(s.independent, true);
        assert.equal(s.bytes.length % 188, 0);
      }
    });

  it("keeps every packet from the first IDR on, in order, but each stream's last PES at the cut", () => {
    const packets = program({ frames: 30, gop: 10, startPts: 0 });
    const segs = cut(packets, 0.4, 1);
    const body = Buffer.concat(segs.map((s) => s.bytes.subarray(2 * 188)));
    // The source's own PAT and PMT before each IDR stay where they were; the PAT before the
    // PMT was read is the only packet dropped besides the leading PMT. The input ends with a
    // cut (`discontinuity()`), where the last PES of the video and of the audio PID may be
    // truncated: both are dropped.
    const lastStart = (pid: number) =>
      packets.findLastIndex((p) => packetPid(p) === pid && (p[1]! & 0x40) !== 0);
    const video = lastStart(0x100);
    const audio = lastStart(0x101);
    const kept = packets
      .slice(2)
      .filter(
        (p, i) =>
          !(packetPid(p) === 0x100 && i + 2 >= video) &&
          !(packetPid(p) === 0x101 && i + 2 >= audio),
      );
    assert.ok(kept.length < packets.length - 2);
    assert.deepEqual(body, Buffer.concat(kept));
  });

  it("reads the codecs once PMT and SPS were seen", () => {
    const c = new SegmentCutter({ targetSec: 1 });
    assert.equal(c.codecs, undefined);
    c.push(program({ frames: 2, gop: 10, startPts: 0 }));
    assert.equal(c.codecs, "avc1.64001e,mp4a.40.2");
  });

  it("a reconnect closes the segment in progress and flags the next one", () => {
    const c = new SegmentCutter({ targetSec: 0.4 });
    const first = c.push(program({ frames: 15, gop: 10, startPts: 0 }));
    const closed = c.discontinuity();
    const after = [
      ...c.push(program({ frames: 21, gop: 10, startPts: 5_000_000 })),
      ...c.discontinuity(),
    ];
    assert.deepEqual(
      first.map((s) => s.durationSec),
      [0.4],
    );
    assert.deepEqual(
      closed.map((s) => [s.durationSec, s.discontinuity]),
      [[0.2, false]],
    );
    assert.deepEqual(
      after.map((s) => [Number(s.durationSec.toFixed(3)), s.discontinuity]),
      [
        [0.4, true],
        [0.4, false],
        [0.04, false],
      ],
    );
  });
});
