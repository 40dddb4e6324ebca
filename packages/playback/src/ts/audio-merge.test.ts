import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AudioMerger } from "./audio-merge.js";
import { AudioTsReader } from "./audio-rendition-ts.js";
import { packedAudioToTs } from "./packed-audio.js";
import { readPesHeader } from "./pes.js";
import { parsePmt } from "./psi.js";
import { PMT_PID, TsMuxer, VIDEO_PID } from "./ts-muxer.js";
import { readPacketHeader } from "./ts-packet.js";

/** A fake H.264 access unit (the merge reads PES headers only). */
const AU = Buffer.from([0, 0, 0, 1, 0x09, 0xf0, 0, 0, 0, 1, 0x65, 0x88, 0x84]);
/** One ADTS frame (AAC LC, 48 kHz, stereo) of `payload` bytes of silence-like data. */
function adts(payload: number): Buffer {
  const length = payload + 7;
  const h = Buffer.from([
    0xff,
    0xf1,
    0x4c,
    0x80,
    (length >> 3) & 0xff,
    ((length & 7) << 5) | 0x1f,
    0xfc,
  ]);
  return Buffer.concat([h, Buffer.alloc(payload, 0x21)]);
}

/** Video PES every 40 ms (3600 ticks) from `t0`, PSI first. */
function videoSegment(mux: TsMuxer, t0: number, frames: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < frames; i++)
    out.push(...mux.video(AU, t0 + i * 3600, t0 + i * 3600, i === 0));
  return out;
}

/** PTS/DTS of every PES start in `packets`, with its PID, in order. */
function pesTimes(packets: Buffer[]): { pid: number; t: number }[] {
  const out: { pid: number; t: number }[] = [];
  for (const p of packets) {
    const h = readPacketHeader(p);
    if (!h.payloadUnitStart || h.pid === 0 || h.pid === PMT_PID) continue;
    const pes = readPesHeader(p.subarray(h.payloadOffset));
    if (pes?.pts !== undefined) out.push({ pid: h.pid, t: pes.dts ?? pes.pts });
  }
  return out;
}

describe("AudioMerger", () => {
  it("declares the rendition's audio in the video's PMT and interleaves it by timestamp", () => {
    const video = new TsMuxer({ video: "avc" });
    const audioMux = new TsMuxer({ audio: "aac" });
    const reader = new AudioTsReader();
    // Audio: 1920-tick frames (1024 samples at 48 kHz) from 126000, the video from 126000.
    const audio: Buffer[] = [];
    for (let i = 0; i < 30; i++) audio.push(...audioMux.audio(adts(100), 126_000 + i * 1920));
    const units = reader.read(audio);
    assert.equal(units.length, 30);
    assert.equal(reader.entry?.streamType, 0x0f);
    const merger = new AudioMerger();
    const out = merger.merge(videoSegment(video, 126_000, 10), units, reader.entry);
    const pmtPacket = out.find((p) => readPacketHeader(p).pid === PMT_PID)!;
    const length = ((pmtPacket[6]! & 0x0f) << 8) | pmtPacket[7]!;
    const pmt = parsePmt(pmtPacket.subarray(5, 8 + length));
    assert.ok(pmt.ok);
    assert.equal(pmt.value.pcrPid, VIDEO_PID, "the PCR stays on the video");
    assert.deepEqual(
      pmt.value.streams.map((s) => [s.streamType, s.pid]),
      [
        [0x1b, VIDEO_PID],
        [0x0f, 0x101],
      ],
    );
    const times = pesTimes(out);
    // Every audio unit up to the last video DTS (126000 + 9 * 3600) is in, in DTS order.
    const audioOut = times.filter((x) => x.pid === 0x101);
    assert.equal(audioOut.length, 17); // 126000 + 16 * 1920 = 156720 <= 158400
    for (let i = 1; i < times.length; i++)
      if (times[i]!.pid === VIDEO_PID) assert.ok(times[i - 1]!.t <= times[i]!.t, `${i}`);
    // Continuity counters of the audio PID count on from 0.
    const ccs = out.filter((p) => readPacketHeader(p).pid === 0x101).map((p) => p[3]! & 0x0f);
    assert.deepEqual(ccs.slice(0, 4), [0, 1, 2, 3]);
    // The audio-only stream's PCR (on its audio) is not carried: the PCR is the video's.
    const pcr = (p: Buffer) => (p[3]! & 0x20) !== 0 && p[4]! > 0 && (p[5]! & 0x10) !== 0;
    assert.ok(audio.some(pcr), "the rendition's own stream had a PCR");
    assert.deepEqual(
      [...new Set(out.filter(pcr).map((p) => readPacketHeader(p).pid))],
      [VIDEO_PID],
    );
    // The rest waits for the next segment's video.
    const next = merger.merge(videoSegment(video, 162_000, 10), [], reader.entry);
    assert.equal(pesTimes(next).filter((x) => x.pid === 0x101).length, 13);
  });

  it("drops the video's own muxed audio for the rendition's, on a free PID", () => {
    const muxed = new TsMuxer({ video: "avc", audio: "aac" });
    const packets = [...muxed.video(AU, 126_000, 126_000, true), ...muxed.audio(adts(50), 126_000)];
    const reader = new AudioTsReader();
    const units = reader.read(new TsMuxer({ audio: "aac" }).audio(adts(60), 120_000));
    const out = new AudioMerger().merge(packets, units, reader.entry);
    const audio = out.filter((p) => readPacketHeader(p).pid === 0x101);
    // Only the rendition's unit (120000), not the variant's own audio (126000).
    assert.deepEqual(
      pesTimes(audio).map((x) => x.t),
      [120_000],
    );
  });
});

describe("packedAudioToTs", () => {
  /** An ID3v2.4 tag with the transportStreamTimestamp PRIV frame. */
  function id3(pts: number): Buffer {
    const owner = Buffer.from("com.apple.streaming.transportStreamTimestamp\0", "latin1");
    const ts = Buffer.alloc(8);
    ts.writeBigUInt64BE(BigInt(pts));
    const data = Buffer.concat([owner, ts]);
    const frame = Buffer.concat([
      Buffer.from("PRIV"),
      Buffer.from([0, 0, 0, data.length, 0, 0]),
      data,
    ]);
    return Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, frame.length]), frame]);
  }

  it("packetizes ADTS frames from the ID3 timestamp on, 1024 samples a frame", () => {
    const bytes = Buffer.concat([
      id3(2 ** 33 - 1920),
      ...Array.from({ length: 10 }, () => adts(80)),
    ]);
    const packets = packedAudioToTs(bytes, new TsMuxer({ audio: "aac" }));
    assert.ok(Array.isArray(packets));
    const reader = new AudioTsReader();
    const units = reader.read(packets);
    // 4 frames a PES: 3 units at 0, 4 and 8 frames after the timestamp (wrapping at 2^33).
    assert.deepEqual(
      units.map((u) => u.pts),
      [2 ** 33 - 1920, 4 * 1920 - 1920, 8 * 1920 - 1920],
    );
    assert.equal(reader.entry?.streamType, 0x0f);
  });

  it("refuses packed audio without a timestamp, or not ADTS", () => {
    const mux = new TsMuxer({ audio: "aac" });
    assert.match(String(packedAudioToTs(adts(10), mux)), /transportStreamTimestamp/);
    assert.match(
      String(packedAudioToTs(Buffer.concat([id3(0), Buffer.from("not adts")]), mux)),
      /not ADTS/,
    );
  });
});
