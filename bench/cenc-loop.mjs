/**
 * The media of the benchmark's live source, made once before anything is measured: a short loop
 * of testsrc2 + sine encoded (not in real time) into CMAF segments of 2 s with four 0.5 s
 * fragments, as ffmpeg's dash muxer writes them for LL-DASH, and encrypted once with the playback
 * package's test encryptor (`cenc-iv8`, the recipe of the test harness's encrypting origin).
 * Each segment keeps the offsets of its `tfdt` and `mfhd` fields, so the origin can move a copy
 * forward by whole loops instead of encoding or encrypting while consumers are measured.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { boxesIn, payloadStart } from "../packages/playback/dist/mp4/box-reader.js";
import { contentProtectionXml } from "../tests/kits/dist/cenc/clearkey.js";
import { encryptFile } from "../tests/kits/dist/cenc/fragment-encryptor.js";
import { encryptInit } from "../tests/kits/dist/cenc/init-encryptor.js";
import { configFor, RECIPES } from "../tests/kits/dist/cenc/vector-configs.js";

export const SEGMENT_SEC = 2;

/**
 * Encodes and encrypts the loop in `dir`; `track(child)` registers the encoder for cleanup.
 * `loopSec` should be a multiple of 8 s so that AAC frames (1024 samples at 48 kHz) fill it
 * exactly and the audio timeline wraps without a gap or an overlap.
 */
export async function prepareLoop({ dir, height, kbps, loopSec, kid, key }, track) {
  const width = Math.round((height * 16) / 9 / 2) * 2;
  const args = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"];
  args.push("-f", "lavfi", "-i", `testsrc2=size=${width}x${height}:rate=25`);
  args.push("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", String(loopSec));
  // The AAC encoder adds one priming frame: 1024 samples fewer in, exactly loopSec out.
  args.push("-af", `atrim=end_sample=${loopSec * 48000 - 1024}`);
  args.push("-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "veryfast");
  args.push("-b:v", `${kbps}k`, "-maxrate", `${kbps}k`, "-bufsize", `${2 * kbps}k`);
  args.push("-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-pix_fmt", "yuv420p");
  args.push("-c:a", "aac", "-b:a", "128k", "-ac", "2", "-metadata:s:a:0", "language=eng");
  args.push("-f", "dash", "-seg_duration", String(SEGMENT_SEC), "-frag_duration", "0.5");
  args.push("-frag_type", "duration", "-use_template", "1", "-use_timeline", "1");
  args.push(
    "-format_options",
    "movflags=cmaf",
    "-adaptation_sets",
    "id=0,streams=0 id=1,streams=1",
  );
  args.push(join(dir, "out.mpd"));
  const encoder = spawn("ffmpeg", args, { stdio: ["ignore", "ignore", "pipe"] });
  track(encoder);
  let stderr = "";
  encoder.stderr.on("data", (d) => {
    stderr += d;
  });
  const code = await new Promise((r) => encoder.once("exit", r));
  if (code !== 0) throw new Error(`loop encode failed (${code}): ${stderr}`);

  const mpd = readFileSync(join(dir, "out.mpd"), "utf8");
  const kidBuf = Buffer.from(kid, "hex");
  const recipe = RECIPES.find((r) => r.name === "cenc-iv8");
  const reps = [];
  for (const set of mpd.match(/<AdaptationSet[\s\S]*?<\/AdaptationSet>/g) ?? []) {
    const kind = /contentType="(\w+)"/.exec(set)?.[1];
    const lang = /\blang="([^"]+)"/.exec(set)?.[1];
    const rep = /<Representation ([^>]*)>/.exec(set)?.[1] ?? "";
    const id = /\bid="(\d+)"/.exec(rep)?.[1];
    const timescale = Number(/timescale="(\d+)"/.exec(set)?.[1]);
    const count = [...set.matchAll(/<S ([^>]*)\/>/g)].reduce(
      (n, m) => n + 1 + Number(/\br="(\d+)"/.exec(m[1])?.[1] ?? 0),
      0,
    );
    const cfg = configFor(
      recipe,
      kind === "video" ? { video: 1 } : { audio: 1 },
      kidBuf,
      Buffer.from(key, "hex"),
    );
    const clearInit = readFileSync(join(dir, `init-stream${id}.m4s`));
    const init = encryptInit(clearInit, cfg);
    const clear = Array.from({ length: count }, (_, i) =>
      stripBoxes(
        readFileSync(join(dir, `chunk-stream${id}-${String(i + 1).padStart(5, "0")}.m4s`)),
        i > 0,
      ),
    );
    const channelConfig = /<AudioChannelConfiguration[^>]*\/>/.exec(set)?.[0] ?? "";
    reps.push({ id, kind, lang, rep, timescale, clear, clearInit, cfg, init, channelConfig });
  }
  const video = reps.find((r) => r.kind === "video");
  if (video === undefined || reps.length !== 2) throw new Error(`unexpected loop MPD:\n${mpd}`);
  for (const r of reps) {
    // ffmpeg cuts audio where the video cuts, shifted by the AAC priming, and may leave a short
    // tail segment: fold what lies beyond the video's segment count into the last segment.
    while (r.clear.length > video.clear.length) {
      const tail = r.clear.pop();
      r.clear[r.clear.length - 1] = Buffer.concat([r.clear.at(-1), stripBoxes(tail, true)]);
    }
    if (r.clear.length !== video.clear.length)
      throw new Error("audio has fewer segments than video");
    // Timing from the media (decode time), not from the MPD (presentation time, which the AAC
    // priming edit list shifts): the loop must wrap exactly where its samples end.
    const starts = r.clear.map((b) => fragmentTimes(b).start);
    const end = fragmentTimes(r.clear.at(-1)).end;
    r.segs = starts.map((t, i) => ({ t, d: (starts[i + 1] ?? end) - t }));
    r.start = starts[0];
    r.loop = end - starts[0];
    if (r.loop !== loopSec * r.timescale)
      throw new Error(`rendition ${r.id} loops after ${r.loop}/${r.timescale} s, not ${loopSec} s`);
    r.encrypted = r.clear.map((b) => {
      const enc = encryptFile(b, r.cfg, r.init.info);
      return { bytes: enc, patches: patchPoints(enc) };
    });
    r.plain = r.clear.map((b) => ({ bytes: b, patches: patchPoints(b) }));
    r.moofsPerLoop = r.encrypted.reduce(
      (n, e) => n + e.patches.filter((p) => p.kind === "mfhd").length,
      0,
    );
  }
  const loopBytes = reps.reduce(
    (n, r) => n + r.encrypted.reduce((m, e) => m + e.bytes.length, 0),
    0,
  );
  return {
    reps,
    protection: contentProtectionXml("cenc", kidBuf),
    /** Media bytes per second of the loop (both renditions, encrypted). */
    bytesPerSec: loopBytes / loopSec,
  };
}

/**
 * Drops `sidx` (its sizes would be stale once encryption grows each `moof`) and, for a
 * segment appended to another, its `styp`.
 */
function stripBoxes(buf, dropStyp) {
  const keep = boxesIn(buf, 0, buf.length, "file").filter(
    (b) => b.type !== "sidx" && !(dropStyp && b.type === "styp"),
  );
  return Buffer.concat(keep.map((b) => buf.subarray(b.start, b.end)));
}

/**
 * Decode time of the first fragment of a single-track segment, and the end of its last one
 * (`tfdt` plus the sample durations of `trun`, or `tfhd`'s default duration).
 */
function fragmentTimes(buf) {
  let start;
  let end = 0;
  for (const moof of boxesIn(buf, 0, buf.length, "file").filter((b) => b.type === "moof")) {
    const traf = boxesIn(buf, payloadStart(moof), moof.end, "moof").find((b) => b.type === "traf");
    let base = 0;
    let defaultDuration = 0;
    let total = 0;
    for (const box of boxesIn(buf, payloadStart(traf), traf.end, "traf")) {
      const p = payloadStart(box);
      const flags = buf.readUInt32BE(p) & 0xffffff;
      if (box.type === "tfdt")
        base = buf[p] === 1 ? Number(buf.readBigUInt64BE(p + 4)) : buf.readUInt32BE(p + 4);
      if (box.type === "tfhd" && flags & 0x8) {
        // ISO/IEC 14496-12 8.8.7: track_ID, then the optional fields in flag order.
        defaultDuration = buf.readUInt32BE(p + 8 + (flags & 0x1 ? 8 : 0) + (flags & 0x2 ? 4 : 0));
      }
      if (box.type === "trun") {
        const samples = buf.readUInt32BE(p + 4);
        const perSample = [0x100, 0x200, 0x400, 0x800].filter((f) => flags & f).length * 4;
        let at = p + 8 + (flags & 0x1 ? 4 : 0) + (flags & 0x4 ? 4 : 0);
        for (let i = 0; i < samples; i++, at += perSample)
          total += flags & 0x100 ? buf.readUInt32BE(at) : defaultDuration;
      }
    }
    start ??= base;
    end = base + total;
  }
  return { start, end };
}

/** Where each `mfhd` sequence number and each `tfdt` decode time sits in a segment. */
function patchPoints(buf) {
  const points = [];
  for (const moof of boxesIn(buf, 0, buf.length, "file").filter((b) => b.type === "moof")) {
    for (const box of boxesIn(buf, payloadStart(moof), moof.end, "moof")) {
      if (box.type === "mfhd") points.push({ kind: "mfhd", at: payloadStart(box) + 4 });
      if (box.type !== "traf") continue;
      for (const t of boxesIn(buf, payloadStart(box), box.end, "traf")) {
        if (t.type === "tfdt")
          points.push({ kind: "tfdt", at: payloadStart(t) + 4, wide: buf[payloadStart(t)] === 1 });
      }
    }
  }
  return points;
}
