import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// The test-only CENC encryptor of the test kits (tests/kits, docs/cenc.md):
// ffmpeg 5.1 writes broken fragmented CENC, so correct vectors come from this encryptor.
import { encryptFile } from "@svc/test-kits/cenc/fragment-encryptor";
import { encryptInit } from "@svc/test-kits/cenc/init-encryptor";
import { configFor, RECIPES } from "@svc/test-kits/cenc/vector-configs";

/**
 * A static DASH presentation (6 s, 1 s segments, H.264 + AAC, SegmentTemplate + timeline)
 * written by ffmpeg into `dir/vod/`, then encrypted in place as ClearKey `cenc` (8-byte IVs,
 * NAL subsamples for video) under `kid`/`key`. Stream 0 is video, stream 1 audio, each with
 * track id 1.
 */
export function writeClearKeyDash(dir: string, kid: string, key: string): string {
  const out = join(dir, "vod");
  mkdirSync(out, { recursive: true });
  execFileSync(
    "ffmpeg",
    [
      ...["-hide_banner", "-nostdin", "-loglevel", "error"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25"],
      ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac", "-b:a", "64k"],
      ...["-f", "dash", "-seg_duration", "1", "-use_template", "1", "-use_timeline", "1"],
      join(out, "manifest.mpd"),
    ],
    { timeout: 60_000 },
  );
  const recipe = RECIPES.find((r) => r.name === "cenc-iv8");
  if (recipe === undefined) throw new Error("cenc-iv8 recipe missing");
  const kidBuf = Buffer.from(kid, "hex");
  const keyBuf = Buffer.from(key, "hex");
  const files = readdirSync(out);
  for (const [stream, tracks] of [
    [0, { video: 1 }],
    [1, { audio: 1 }],
  ] as const) {
    const cfg = configFor(recipe, tracks, kidBuf, keyBuf);
    const initPath = join(out, `init-stream${stream}.m4s`);
    const { init, info } = encryptInit(readFileSync(initPath), cfg);
    writeFileSync(initPath, init);
    for (const name of files.filter((n) => n.startsWith(`chunk-stream${stream}-`))) {
      const path = join(out, name);
      writeFileSync(path, encryptFile(readFileSync(path), cfg, info));
    }
  }
  return join(out, "manifest.mpd");
}
