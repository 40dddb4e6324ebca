import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { after, before, describe, it } from "node:test";
import { encryptFile } from "@svc/test-kits/cenc/fragment-encryptor";
import { configFor, RECIPES, TEST_KEY, TEST_KID } from "@svc/test-kits/cenc/vector-configs";
import {
  type ClearSources,
  haveFfmpeg,
  makeClearSources,
  probeCodecTags,
  streamHash,
} from "@svc/test-kits/ffmpeg-tools";
import { listBoxes } from "../mp4/box-reader.js";
import { inspectInit } from "../mp4/inspect-init.js";
import { createDecryptStream } from "./decrypt-stream.js";
import { decryptInit } from "./init-decrypt.js";
import { decryptSegment } from "./segment-decrypt.js";

const KEY_HEX = TEST_KEY.toString("hex");
const KEYS = new Map([[TEST_KID.toString("hex"), TEST_KEY]]);
const skip = haveFfmpeg() ? false : "ffmpeg/ffprobe not installed";

function hashes(buf: Buffer, key?: string): string[] {
  const r = streamHash(buf, key);
  assert.ok(r.ok, r.ok ? "" : r.stderr);
  return r.lines;
}

async function streamed(input: Buffer, chunk: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  const pieces: Buffer[] = [];
  for (let i = 0; i < input.length; i += chunk) pieces.push(input.subarray(i, i + chunk));
  await pipeline(
    Readable.from(pieces),
    createDecryptStream({ keys: KEYS }),
    async (src: AsyncIterable<unknown>) => {
      for await (const b of src) parts.push(b as Buffer);
    },
  );
  return Buffer.concat(parts);
}

describe("encrypted vectors confirmed by ffmpeg, decrypted by us", { skip }, () => {
  let dir = "";
  let sources: ClearSources;
  const clear = new Map<string, { buf: Buffer; hash: string[] }>();

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "mp4cenc-"));
    sources = makeClearSources(dir);
    for (const [name, file] of Object.entries(sources)) {
      const buf = readFileSync(file);
      clear.set(name, { buf, hash: hashes(buf) });
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const recipe of RECIPES) {
    for (const source of ["av", "video", "audio"] as const) {
      if (source === "audio" && !recipe.audio) continue;
      it(`${recipe.name} / ${source}`, async () => {
        const c = clear.get(source);
        assert.ok(c);
        const init = inspectInit(c.buf);
        assert.ok(init.ok);
        const video = init.value.find((t) => t.handler === "vide")?.trackId;
        const audio = init.value.find((t) => t.handler === "soun")?.trackId;
        const enc = encryptFile(
          c.buf,
          configFor(recipe, {
            ...(video !== undefined && { video }),
            ...(audio !== undefined && { audio }),
          }),
        );

        // The vector really is encrypted: without the key ffmpeg sees different packets.
        const noKey = streamHash(enc);
        if (noKey.ok) assert.notDeepEqual(noKey.lines, c.hash);
        // ffmpeg, an independent decryptor, recovers the clear packets.
        assert.deepEqual(hashes(enc, KEY_HEX), c.hash);

        const dec = decryptSegment(enc, { keys: KEYS });
        assert.ok(dec.ok, dec.ok ? "" : JSON.stringify(dec.error));
        assert.deepEqual(hashes(dec.value), c.hash);
        // No encryption boxes are left anywhere in the output.
        for (const t of ["encv", "enca", "sinf", "pssh", "senc", "saiz", "saio", "tenc"])
          assert.equal(dec.value.includes(t, 0, "latin1"), false, t);
        const outFile = join(dir, `${recipe.name}-${source}.mp4`);
        writeFileSync(outFile, dec.value);
        const tags = probeCodecTags(outFile);
        assert.deepEqual(
          tags,
          init.value.map((t) => (t.handler === "vide" ? "avc1" : "mp4a")),
        );

        // Streaming in odd-sized chunks yields the same bytes as the buffer API.
        assert.deepEqual(await streamed(enc, 1777), dec.value);
        if (recipe.scheme === "cbcs" && source === "av")
          assert.deepEqual(await streamed(enc, 7), dec.value);

        // Init and media delivered separately (DASH style).
        const boxes = listBoxes(enc);
        assert.ok(boxes.ok);
        const firstMoof = boxes.value.find((b) => b.type === "moof");
        assert.ok(firstMoof);
        const di = decryptInit(enc.subarray(0, firstMoof.start));
        assert.ok(di.ok);
        const media = decryptSegment(enc.subarray(firstMoof.start), {
          keys: KEYS,
          context: di.value.context,
        });
        assert.ok(media.ok);
        assert.deepEqual(Buffer.concat([di.value.init, media.value]), dec.value);
      });
    }
  }
});
