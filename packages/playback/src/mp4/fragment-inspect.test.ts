import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { syntheticFragments, syntheticInit } from "@svc/test-kits/cenc/synthetic-media";
import { writeBox, writeFullBox } from "./box-writer.js";
import { parseMoof } from "./fragment-parser.js";
import { parseInit } from "./init-parser.js";
import { inspectFragment } from "./inspect-fragment.js";
import { inspectInit } from "./inspect-init.js";
import { resolveSampleRanges } from "./sample-layout.js";
import { splitChunks } from "./split-chunks.js";

const u32 = (...n: number[]): Buffer =>
  Buffer.concat(
    n.map((v) => {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(v >>> 0);
      return b;
    }),
  );

describe("init and fragment inspection", () => {
  const init = syntheticInit();
  const frags = syntheticFragments({
    fragments: 3,
    videoSampleSizes: [900, 100, 120],
    audioSampleSizes: [50, 60, 70, 80],
  });

  it("inspectInit reports codec strings and track properties", () => {
    const r = inspectInit(init);
    assert.ok(r.ok);
    assert.deepEqual(r.value, [
      {
        trackId: 1,
        handler: "vide",
        timescale: 90000,
        sampleEntry: "avc1",
        encrypted: false,
        language: "eng",
        codec: "avc1.640028",
        width: 1280,
        height: 720,
      },
      {
        trackId: 2,
        handler: "soun",
        timescale: 48000,
        sampleEntry: "mp4a",
        encrypted: false,
        language: "eng",
        codec: "mp4a.40.2",
        channelCount: 2,
        sampleRate: 48000,
      },
    ]);
  });

  it("inspectFragment gives decode time, counts, durations and sync", () => {
    const second = frags.subarray(splitOrThrow(frags)[1]!.start);
    const parsed = parseInit(init);
    assert.ok(parsed.ok);
    const r = inspectFragment(second, parsed.value);
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      sequenceNumber: 2,
      tracks: [
        {
          trackId: 1,
          baseMediaDecodeTime: 10800n,
          sampleCount: 3,
          totalDuration: 10800,
          firstSampleIsSync: true,
        },
        {
          trackId: 2,
          baseMediaDecodeTime: 4096n,
          sampleCount: 4,
          totalDuration: 4096,
          firstSampleIsSync: true,
        },
      ],
    });
  });

  it("splitChunks tiles the segment including prefix boxes", () => {
    const styp = writeBox("styp", Buffer.from("msdh", "latin1"), u32(0));
    const seg = Buffer.concat([styp, frags]);
    const chunks = splitOrThrow(seg);
    assert.equal(chunks.length, 3);
    assert.equal(chunks[0]!.start, 0);
    assert.equal(chunks[0]!.moofStart, styp.length);
    for (let i = 1; i < chunks.length; i++) assert.equal(chunks[i]!.start, chunks[i - 1]!.end);
    assert.equal(chunks[2]!.end, seg.length);
    const bad = splitChunks(Buffer.concat([frags, writeBox("moof", Buffer.alloc(0))]));
    assert.deepEqual(bad.ok ? null : bad.error.box, "moof");
  });

  it("trun with every optional field, tfhd defaults and non-sync flags", () => {
    const tfhd = writeFullBox(
      "tfhd",
      0,
      0x1 | 0x2 | 0x8 | 0x10 | 0x20,
      u32(7),
      u32(1000),
      u32(2),
      u32(1),
      u32(10),
      u32(20),
      u32(0x01010000),
    );
    const trun = writeFullBox(
      "trun",
      1,
      0x1 | 0x4 | 0x100 | 0x200 | 0x400 | 0x800,
      u32(2, 100, 0x02000000),
      u32(5, 11, 0x01010000, 0xfffffffe),
      u32(6, 12, 0x01010000, 3),
    );
    const trunDefaults = writeFullBox("trun", 0, 0, u32(2));
    const moof = writeBox(
      "moof",
      writeFullBox("mfhd", 0, 0, u32(9)),
      writeBox("traf", tfhd, writeFullBox("tfdt", 0, 0, u32(77)), trun, trunDefaults),
    );
    const r = parseMoof(moof, { type: "moof", start: 0, headerSize: 8, end: moof.length });
    assert.ok(r.ok);
    const traf = r.value.trafs[0]!;
    assert.equal(traf.tfhd.baseDataOffset, 1000 * 2 ** 32 + 2);
    assert.equal(traf.baseMediaDecodeTime, 77n);
    assert.deepEqual(traf.truns[0]!.samples, [
      { size: 11, duration: 5, flags: 0x02000000, compositionOffset: -2 },
      { size: 12, duration: 6, flags: 0x01010000, compositionOffset: 3 },
    ]);
    assert.deepEqual(traf.truns[1]!.samples, [
      { size: 20, duration: 10, flags: 0x01010000, compositionOffset: 0 },
      { size: 20, duration: 10, flags: 0x01010000, compositionOffset: 0 },
    ]);
    const layout = resolveSampleRanges(r.value, 1000 * 2 ** 32);
    assert.ok(layout.ok);
    // base = 2 (absolute base_data_offset minus the moof position), +100 data_offset; the second run continues.
    assert.deepEqual(
      layout.value[0]!.samples.map((s) => s.offset),
      [102, 113, 125, 145],
    );
  });

  it("a sample size without any default is an error value", () => {
    const moof = writeBox(
      "moof",
      writeFullBox("mfhd", 0, 0, u32(1)),
      writeBox(
        "traf",
        writeFullBox("tfhd", 0, 0, u32(1)),
        writeFullBox("trun", 0, 0x100, u32(1, 5)),
      ),
    );
    const r = parseMoof(moof, { type: "moof", start: 0, headerSize: 8, end: moof.length });
    assert.deepEqual(r, {
      ok: false,
      error: { box: "trun", message: "sample size absent from trun, tfhd and trex" },
    });
  });
});

function splitOrThrow(buf: Buffer) {
  const r = splitChunks(buf);
  assert.ok(r.ok);
  return r.value;
}
