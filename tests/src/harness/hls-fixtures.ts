import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { tempDir } from "./gateway-process.js";

const run = promisify(execFile);

/**
 * Real HLS made by ffmpeg at test time (tiny: 3 s of 160x90 test pattern and a
 * sine tone), one directory per flavour under the returned root:
 * - `vod/master.m3u8`: two video variants and an audio rendition (`EXT-X-MEDIA`)
 * - `enc/media.m3u8`: AES-128 (`EXT-X-KEY`, key at `enc/key.bin`)
 * - `fmp4/media.m3u8`: fMP4 segments with `EXT-X-MAP`
 * - `range/media.m3u8`: one file addressed with `EXT-X-BYTERANGE`
 * Generated once per test process; callers must not modify the files.
 */
export async function hlsFixtures(): Promise<string> {
  fixtures ??= generate();
  return fixtures;
}

let fixtures: Promise<string> | undefined;

const SOURCE = [
  "-hide_banner",
  "-loglevel",
  "error",
  "-f",
  "lavfi",
  "-i",
  "testsrc=size=160x90:rate=10",
  "-f",
  "lavfi",
  "-i",
  "sine=frequency=440:sample_rate=22050",
  "-t",
  "3",
];
const VIDEO = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "10"];
const AUDIO = ["-c:a", "aac", "-b:a", "32k"];
const HLS = ["-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"];

async function generate(): Promise<string> {
  const root = tempDir("svc-hls-fixtures-");
  for (const d of ["vod", "enc", "fmp4", "range"]) mkdirSync(join(root, d));
  const key = Buffer.from("00112233445566778899aabbccddeeff", "hex");
  writeFileSync(join(root, "enc", "key.bin"), key);
  writeFileSync(
    join(root, "enc", "keyinfo"),
    `key.bin\n${join(root, "enc", "key.bin")}\n000102030405060708090a0b0c0d0e0f\n`,
  );
  const ffmpeg = (cwd: string, args: string[]) => run("ffmpeg", [...SOURCE, ...args], { cwd });
  await Promise.all([
    ffmpeg(join(root, "vod"), [
      ...["-map", "0:v", "-map", "0:v", "-map", "1:a"],
      ...VIDEO,
      ...["-s:v:1", "96x54"],
      ...AUDIO,
      ...HLS,
      ...["-master_pl_name", "master.m3u8"],
      ...["-var_stream_map", "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,language:en,name:audio"],
      ...["-hls_segment_filename", "v%v_%d.ts", "v%v.m3u8"],
    ]),
    ffmpeg(join(root, "enc"), [
      ...VIDEO,
      ...AUDIO,
      ...HLS,
      ...["-hls_key_info_file", "keyinfo", "-hls_segment_filename", "seg%d.ts", "media.m3u8"],
    ]),
    ffmpeg(join(root, "fmp4"), [
      ...VIDEO,
      ...AUDIO,
      ...HLS,
      ...["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"],
      ...["-hls_segment_filename", "seg%d.m4s", "media.m3u8"],
    ]),
    ffmpeg(join(root, "range"), [
      ...VIDEO,
      ...AUDIO,
      ...HLS,
      ...["-hls_flags", "single_file", "media.m3u8"],
    ]),
  ]);
  return root;
}

/** A fixture file's bytes. */
export function fixtureBytes(root: string, path: string): Buffer {
  return readFileSync(join(root, path));
}
