import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readPesHeader } from "./pes.js";
import { parsePat, parsePmt } from "./psi.js";
import { AUDIO_PID, PCR_DELAY, PMT_PID, TsMuxer, VIDEO_PID } from "./ts-muxer.js";
import { readPacketHeader } from "./ts-packet.js";

/** The section a PSI packet carries (pointer_field 0). */
function sectionOf(p: Buffer): Buffer {
  const length = ((p[6]! & 0x0f) << 8) | p[7]!;
  return p.subarray(5, 8 + length);
}

/** The payload bytes of `pid` in `packets`, joined. */
function payloadOf(packets: Buffer[], pid: number): Buffer {
  return Buffer.concat(
    packets
      .filter((p) => readPacketHeader(p).pid === pid)
      .map((p) => p.subarray(readPacketHeader(p).payloadOffset)),
  );
}

/** PCR base of a packet with one, else undefined. */
function pcrOf(p: Buffer): number | undefined {
  if ((p[3]! & 0x20) === 0 || p[4] === 0 || (p[5]! & 0x10) === 0) return undefined;
  return p[6]! * 2 ** 25 + p[7]! * 2 ** 17 + p[8]! * 2 ** 9 + p[9]! * 2 + (p[10]! >> 7);
}

describe("TsMuxer", () => {
  it("writes PAT and PMT that the demuxer reads back, with valid CRCs", () => {
    const mux = new TsMuxer({ video: "hevc", audio: "aac" });
    const [pat, pmt] = mux.psi();
    assert.equal(pat!.length, 188);
    assert.deepEqual(pat!.subarray(0, 5), Buffer.from([0x47, 0x40, 0x00, 0x10, 0x00]));
    const programs = parsePat(sectionOf(pat!));
    assert.deepEqual(programs, { ok: true, value: [{ programNumber: 1, pmtPid: PMT_PID }] });
    // Exact bytes of the PAT section (CRC included), as 13818-1 2.4.4.3 lays it out.
    assert.equal(sectionOf(pat!).toString("hex"), "00b00d0001c100000001f0002ab104b2");
    const parsed = parsePmt(sectionOf(pmt!));
    assert.ok(parsed.ok);
    assert.equal(parsed.value.pcrPid, VIDEO_PID);
    assert.deepEqual(
      parsed.value.streams.map((s) => [s.streamType, s.pid]),
      [
        [0x24, VIDEO_PID],
        [0x0f, AUDIO_PID],
      ],
    );
    assert.equal(readPacketHeader(pmt!).pid, PMT_PID);
  });

  it("puts PCR on the audio PID of an audio-only program", () => {
    const mux = new TsMuxer({ audio: "aac" });
    const pmt = parsePmt(sectionOf(mux.psi()[1]!));
    assert.ok(pmt.ok);
    assert.equal(pmt.value.pcrPid, AUDIO_PID);
    const packets = mux.audio(Buffer.alloc(300, 1), 200_000);
    const audio = packets.filter((p) => readPacketHeader(p).pid === AUDIO_PID);
    assert.equal(pcrOf(audio[0]!), 200_000 - PCR_DELAY);
  });

  it("splits a PES over packets: PTS/DTS, PCR, random access, stuffing, counters", () => {
    for (const size of [1, 150, 157, 158, 170, 183, 184, 400, 5000, 70_000]) {
      const mux = new TsMuxer({ video: "avc", audio: "aac" });
      const au = Buffer.alloc(size);
      for (let i = 0; i < size; i++) au[i] = i & 0xff;
      const packets = mux.video(au, 2 ** 33 - 10, 2 ** 33 - 3010, true);
      // PAT and PMT first at a random-access point.
      assert.deepEqual(
        packets.slice(0, 2).map((p) => readPacketHeader(p).pid),
        [0, PMT_PID],
      );
      const video = packets.filter((p) => readPacketHeader(p).pid === VIDEO_PID);
      for (const p of packets) assert.equal(p.length, 188);
      assert.deepEqual(
        video.map((p) => readPacketHeader(p).continuityCounter),
        video.map((_, i) => i & 0x0f),
      );
      assert.equal(readPacketHeader(video[0]!).payloadUnitStart, true);
      assert.equal(readPacketHeader(video[0]!).randomAccess, true);
      assert.ok(video.slice(1).every((p) => !readPacketHeader(p).payloadUnitStart));
      assert.equal(pcrOf(video[0]!), 2 ** 33 - 3010 - PCR_DELAY, `size ${size}`);
      const pes = payloadOf(packets, VIDEO_PID);
      const h = readPesHeader(pes);
      assert.deepEqual(h, {
        streamId: 0xe0,
        payloadOffset: 19,
        pts: 2 ** 33 - 10,
        dts: 2 ** 33 - 3010,
      });
      const length = pes.readUInt16BE(4);
      assert.equal(length, size + 13 > 0xffff ? 0 : size + 13);
      assert.deepEqual(pes.subarray(19), au, `size ${size}`);
    }
  });

  it("writes PTS only when it equals DTS, and no PCR on audio beside video", () => {
    const mux = new TsMuxer({ video: "avc", audio: "aac" });
    const packets = mux.audio(Buffer.from([1, 2, 3]), 90_000);
    const audio = packets.filter((p) => readPacketHeader(p).pid === AUDIO_PID);
    assert.equal(audio.length, 1);
    assert.equal(pcrOf(audio[0]!), undefined);
    const pes = payloadOf(packets, AUDIO_PID);
    assert.deepEqual(readPesHeader(pes), { streamId: 0xc0, payloadOffset: 14, pts: 90_000 });
    assert.equal(pes.readUInt16BE(4), 3 + 5 + 3);
    assert.deepEqual(pes.subarray(14), Buffer.from([1, 2, 3]));
  });

  it("repeats PAT and PMT every 100 ms and at each random-access point", () => {
    const mux = new TsMuxer({ video: "avc", audio: "aac" });
    const psiAt: number[] = [];
    for (let frame = 0; frame < 50; frame++) {
      const t = frame * 3600; // 25 fps
      const packets = [
        ...mux.video(Buffer.alloc(500), t, t, frame % 25 === 0),
        ...mux.audio(Buffer.alloc(200), t + 100),
      ];
      if (packets.some((p) => readPacketHeader(p).pid === 0)) psiAt.push(frame);
    }
    assert.deepEqual(psiAt.slice(0, 6), [0, 3, 6, 9, 12, 15]);
    assert.ok(psiAt.includes(25));
    for (let i = 1; i < psiAt.length; i++) assert.ok(psiAt[i]! - psiAt[i - 1]! <= 3);
  });
});
