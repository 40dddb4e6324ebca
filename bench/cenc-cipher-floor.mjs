#!/usr/bin/env node
/**
 * What node:crypto allows a cenc (AES-128-CTR) decryptor per CPU-second, before any MP4
 * work: the ceiling under the end-to-end figure of `bench/src/cenc-throughput.ts`.
 * No network, no files. Every line is MB (10^6 bytes) per CPU-second of this process.
 *
 *   node bench/cenc-cipher-floor.mjs [rounds=3] [sampleBytes=40000]
 *
 * - `one stream`: one decipher, `update()` over 64 KiB pieces: AES-CTR alone (the
 *   ceiling; there is no cheaper way through node:crypto);
 * - `per sample`: one `createDecipheriv` and one `update()` per sample, each with its own
 *   IV, as cenc requires (ISO/IEC 23001-7 9.1: every sample has its own IV; its
 *   subsamples share one counter stream, which the engine already does);
 * - `per sample, KeyObject`: the same with the key imported once (`createSecretKey`);
 * - `createDecipheriv alone`: the set-up cost per sample, in µs;
 * - `update() output`: node:crypto has no decrypt-into-buffer API (`update()` always
 *   returns a new Buffer), so the allocation is part of every line above; `copy into a
 *   reused buffer` shows what one extra copy of the output would cost.
 */
import { createDecipheriv, createSecretKey, randomBytes } from "node:crypto";

const ROUNDS = Number(process.argv[2] ?? 3);
const SAMPLE = Number(process.argv[3] ?? 40_000);
const TOTAL = 256 << 20;
const key = randomBytes(16);
const keyObject = createSecretKey(key);
const data = randomBytes(SAMPLE);
const stream = randomBytes(64 << 10);
const reused = Buffer.alloc(SAMPLE);
const iv = Buffer.alloc(16);

function cpuSeconds(fn) {
  const t0 = process.cpuUsage();
  fn();
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / 1e6;
}

const rate = (bytes, s) => `${(bytes / s / 1e6).toFixed(0)} MB/s`;
const samples = Math.floor(TOTAL / SAMPLE);

for (let r = 1; r <= ROUNDS; r++) {
  const one = cpuSeconds(() => {
    const d = createDecipheriv("aes-128-ctr", key, iv);
    for (let done = 0; done < TOTAL; done += stream.length) d.update(stream);
  });
  const perSample = (k) =>
    cpuSeconds(() => {
      for (let i = 0; i < samples; i++) {
        iv.writeUInt32BE(i, 0);
        createDecipheriv("aes-128-ctr", k, iv).update(data);
      }
    });
  const bufferKey = perSample(key);
  const objectKey = perSample(keyObject);
  const create = cpuSeconds(() => {
    for (let i = 0; i < samples; i++) {
      iv.writeUInt32BE(i, 0);
      createDecipheriv("aes-128-ctr", key, iv);
    }
  });
  const copied = cpuSeconds(() => {
    for (let i = 0; i < samples; i++) {
      iv.writeUInt32BE(i, 0);
      createDecipheriv("aes-128-ctr", key, iv).update(data).copy(reused);
    }
  });
  process.stdout.write(
    `round ${r}: one stream ${rate(TOTAL, one)}; per ${SAMPLE}-byte sample ${rate(samples * SAMPLE, bufferKey)}` +
      `, KeyObject ${rate(samples * SAMPLE, objectKey)}; createDecipheriv alone ${((create / samples) * 1e6).toFixed(2)} µs` +
      `; per sample + copy into a reused buffer ${rate(samples * SAMPLE, copied)}\n`,
  );
}
