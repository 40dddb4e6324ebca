/**
 * Decryption throughput of the streaming patcher (box parse + decrypt + moof rewrite),
 * one core, against ffmpeg's CPU time on the same bytes, and against node:crypto's
 * AES-128-CTR alone over the same bytes in chunk-sized updates (the ceiling for any
 * decryptor built on node:crypto on this machine at this moment).
 *
 *   npx tsc -p bench && node bench/dist/cenc-throughput.js [passes=10] [chunkBytes=65536]
 */
import { spawnSync } from "node:child_process";
import { createDecipheriv } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createDecryptStream } from "../../packages/playback/dist/cenc/decrypt-stream.js";
import { encryptFile } from "../../tests/kits/dist/cenc/fragment-encryptor.js";
import { syntheticFragments, syntheticInit } from "../../tests/kits/dist/cenc/synthetic-media.js";
import {
  configFor,
  RECIPES,
  TEST_KEY,
  TEST_KID,
} from "../../tests/kits/dist/cenc/vector-configs.js";

const PASSES = Number(process.argv[2] ?? 10);
const CHUNK = Number(process.argv[3] ?? 64 * 1024);
const KEYS = new Map([[TEST_KID.toString("hex"), TEST_KEY]]);

// 2 s fragments of ~8.5 Mbit/s 25 fps video (one 200 KB IDR + 49 × 40 KB) and 48 kHz AAC (94 × 400 B).
const video = [200_000, ...Array.from({ length: 49 }, (_, i) => 36_000 + ((i * 7919) % 8000))];
const audio = Array.from({ length: 94 }, (_, i) => 380 + (i % 40));
const clear = Buffer.concat([
  syntheticInit(),
  syntheticFragments({ fragments: 16, videoSampleSizes: video, audioSampleSizes: audio }),
]);

async function decryptPass(input: Buffer): Promise<number> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < input.length; i += CHUNK) chunks.push(input.subarray(i, i + CHUNK));
  let bytes = 0;
  await pipeline(
    Readable.from(chunks),
    createDecryptStream({ keys: KEYS }),
    new Writable({
      write(b: Buffer, _e, done) {
        bytes += b.length;
        done();
      },
    }),
  );
  return bytes;
}

/** node:crypto AES-128-CTR over `input` in CHUNK-byte updates: MB per CPU-second, median of PASSES rounds. */
function ctrCeiling(input: Buffer): number {
  const d = createDecipheriv("aes-128-ctr", TEST_KEY, Buffer.alloc(16));
  const rounds: number[] = [];
  for (let p = 0; p < PASSES; p++) {
    const c = process.cpuUsage();
    for (let i = 0; i < input.length; i += CHUNK) d.update(input.subarray(i, i + CHUNK));
    const u = process.cpuUsage(c);
    rounds.push((u.user + u.system) / 1e6);
  }
  const median = rounds.sort((a, b) => a - b)[rounds.length >> 1] as number;
  return input.length / 1e6 / median;
}

function ffmpegCpu(file: string): { cpu: number; wall: number } | string {
  const script = `cat ${file} | /usr/bin/time -f '%e %U %S' ffmpeg -v error -decryption_key ${TEST_KEY.toString("hex")} -i - -c copy -f mp4 -y /dev/null`;
  const r = spawnSync("bash", ["-c", script]);
  const line = r.stderr.toString().trim().split("\n").pop() ?? "";
  const [wall, user, sys] = line.split(" ").map(Number);
  if (
    r.status !== 0 ||
    wall === undefined ||
    user === undefined ||
    sys === undefined ||
    Number.isNaN(wall)
  )
    return r.stderr.toString();
  return { cpu: user + sys, wall };
}

const dir = mkdtempSync(join(tmpdir(), "cenc-bench-"));
const rows: string[] = [];
try {
  for (const name of ["cenc-iv8", "cbcs-1-9-constant-iv"]) {
    const recipe = RECIPES.find((r) => r.name === name)!;
    const enc = encryptFile(clear, configFor(recipe, { video: 1, audio: 2 }));
    await decryptPass(enc); // warm-up
    const perPass: number[] = [];
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    let total = 0;
    for (let p = 0; p < PASSES; p++) {
      const c = process.cpuUsage();
      total += await decryptPass(enc);
      const d = process.cpuUsage(c);
      perPass.push((d.user + d.system) / 1e6);
    }
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    const cpuSec = (cpu.user + cpu.system) / 1e6;
    const mb = (enc.length * PASSES) / 1e6;
    const median = perPass.sort((a, b) => a - b)[perPass.length >> 1] as number;
    const ceiling = ctrCeiling(enc);
    const file = join(dir, `${name}.mp4`);
    writeFileSync(file, enc);
    const ff = ffmpegCpu(file);
    const ffText =
      typeof ff === "string"
        ? `ffmpeg failed: ${ff}`
        : `${(enc.length / 1e6 / ff.cpu).toFixed(0)} MB/s per CPU-second (${ff.cpu.toFixed(2)} s CPU, ${ff.wall.toFixed(2)} s wall for ${(enc.length / 1e6).toFixed(1)} MB)`;
    rows.push(
      `${recipe.scheme.padEnd(5)} ${mb.toFixed(0)} MB in ${wall.toFixed(2)} s wall / ${cpuSec.toFixed(2)} s CPU: ` +
        `${(mb / wall).toFixed(0)} MB/s wall, ${(mb / cpuSec).toFixed(0)} MB/s per CPU-second, median pass ${(enc.length / 1e6 / median).toFixed(0)} MB/s (output ${total === clear.length * PASSES ? "byte count ok" : "SIZE MISMATCH"})` +
        ` | AES-CTR alone: ${ceiling.toFixed(0)} MB/s per CPU-second | ffmpeg: ${ffText}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(
      " ",
    )}, ${PASSES} passes over ${(clear.length / 1e6).toFixed(1)} MB of fragments, ${CHUNK / 1024} KiB input chunks`,
);
for (const r of rows) console.log(r);
