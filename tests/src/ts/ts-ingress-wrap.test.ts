import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { startTsLiveOrigin, type TsLiveOrigin } from "../harness/ts-live-origin.js";
import { until } from "../harness/until.js";
import { authSection } from "../harness/users.js";
import { entries, get, getMedia, type PlaylistEntry, sleep } from "./ts-playlists.js";

// Issue 33: timestamps that wrap at 2^33 (26.5 h of a 90 kHz clock) inside one connection.
// The encoder starts 25 s before the wrap, when the gateway connects; one encoder for the suite.
const WRAP_SEC = 2 ** 33 / 90_000;
let origin: TsLiveOrigin;
let gw: GatewayProcess;
before(async () => {
  origin = await startTsLiveOrigin({ tsOffsetSec: WRAP_SEC - 25, lazy: true });
  gw = await startGateway("lite", {
    auth: authSection(),
    security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
    channels: [{ id: "w", title: "w", ingress: "ts", source_url: `${origin.url}/live.ts` }],
  });
});
after(async () => {
  await gw?.stop();
  await origin?.stop();
});

/**
 * The PTS (seconds of the 33-bit clock) of a segment's first video PES (stream id 0xE0),
 * read from the bytes: ffprobe would unwrap timestamps against the audio around them.
 */
function startTimeOf(bytes: Buffer): number {
  for (let at = 0; at + 188 <= bytes.length; at += 188) {
    if ((bytes[at + 1]! & 0x40) === 0) continue;
    const afc = (bytes[at + 3]! >> 4) & 0x3;
    if ((afc & 0x1) === 0) continue;
    const p = at + 4 + (afc === 0x3 ? 1 + bytes[at + 4]! : 0);
    if (bytes[p] !== 0 || bytes[p + 1] !== 0 || bytes[p + 2] !== 1 || bytes[p + 3] !== 0xe0)
      continue;
    const t = p + 9;
    const pts =
      ((bytes[t]! >> 1) & 0x07) * 2 ** 30 +
      (bytes[t + 1]! << 22) +
      ((bytes[t + 2]! >> 1) << 15) +
      (bytes[t + 3]! << 7) +
      (bytes[t + 4]! >> 1);
    return pts / 90_000;
  }
  throw new Error("no video PES in the segment");
}

describe("ingress: ts across the PTS wrap", () => {
  it("keeps 2 s EXTINF and no discontinuity across the wrap", { timeout: 120_000 }, async () => {
    const index = `${gw.url}/v1/play/w/index.m3u8`;
    const seen = new Map<number, PlaylistEntry & { start: number }>();
    // Read every segment as it is published until one starts after the wrap and two more
    // followed it.
    await until(
      "segments from both sides of the wrap",
      async () => {
        const media = await getMedia(index);
        assert.equal(media.status, 200, media.text);
        for (const e of entries(media.text)) {
          if (seen.has(e.msn)) continue;
          const seg = await get(e.uri);
          assert.equal(seg.status, 200);
          seen.set(e.msn, { ...e, start: startTimeOf(seg.bytes) });
        }
        const list = [...seen.values()];
        const after = list.filter((s) => s.start < 60);
        const before = list.filter((s) => s.start > WRAP_SEC - 60);
        await sleep(1000);
        return after.length >= 3 && before.length >= 2 ? true : undefined;
      },
      90_000,
    );
    const list = [...seen.values()].sort((a, b) => a.msn - b.msn);
    for (let i = 1; i < list.length; i++)
      assert.equal(list[i]!.msn, list[i - 1]!.msn + 1, "every published segment was read");
    for (const s of list) {
      assert.equal(s.discontinuity, false, `segment ${s.msn} after a discontinuity`);
      // x264 -g 25 at 25 fps: an IDR every second, cut at the first one at or after 2 s.
      assert.ok(Math.abs(s.duration - 2) < 0.05, `segment ${s.msn}: EXTINF ${s.duration}`);
    }
    // The segment the wrap falls in: its successor's start is its own plus its EXTINF,
    // counted on the 33-bit clock.
    const k = list.findIndex((s, i) => i > 0 && s.start < list[i - 1]!.start);
    assert.ok(k > 0, "a segment starts after the wrap");
    const a = list[k - 1]!;
    const b = list[k]!;
    const step = (b.start - a.start + WRAP_SEC) % WRAP_SEC;
    assert.ok(Math.abs(step - a.duration) < 0.05, `${step} s between starts, EXTINF ${a.duration}`);
  });
});
