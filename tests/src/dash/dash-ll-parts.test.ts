import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { validateMediaPlaylist } from "@svc/playback/playlist-validator";
import type { Browser } from "playwright-core";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { CHROMIUM, launchChromium, playFor, startHlsJsPage } from "../harness/hlsjs-page.js";
import { tagUris, uriLines } from "../harness/media-probe.js";
import { hasNginx, startNginxFront } from "../harness/nginx-front.js";
import { until } from "../harness/until.js";
import { authSection } from "../harness/users.js";

interface ListedPart {
  readonly msn: number;
  readonly index: number;
  readonly durationSec: number;
  readonly independent: boolean;
  readonly uri: string;
}

/** The EXT-X-PART lines of a media playlist, in order. */
function partsOf(text: string): ListedPart[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith("#EXT-X-PART:"))
    .map((l) => {
      const uri = /URI="([^"]+)"/.exec(l)![1]!;
      const m = /-(\d+)\.(\d+)\.m4s/.exec(uri)!;
      return {
        msn: Number(m[1]),
        index: Number(m[2]),
        durationSec: Number(/DURATION=([\d.]+)/.exec(l)![1]),
        independent: l.includes("INDEPENDENT=YES"),
        uri,
      };
    });
}

/** EXTINF duration of every listed segment, keyed by MSN. */
function segmentDurations(text: string): Map<number, number> {
  const out = new Map<number, number>();
  let msn = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)![1]);
  for (const m of text.matchAll(/#EXTINF:([\d.]+),/g)) out.set(msn++, Number(m[1]));
  return out;
}

/** Counts top-level `moof` boxes: one per CMAF chunk. */
function moofCount(bytes: Buffer): number {
  let n = 0;
  for (let at = 0; at + 8 <= bytes.length; ) {
    const size = bytes.readUInt32BE(at);
    if (bytes.toString("latin1", at + 4, at + 8) === "moof") n += 1;
    if (size < 8) break;
    at += size;
  }
  return n;
}

describe("LL-HLS parts from a one-frame-per-chunk LL-DASH source (issue 13 item 3)", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  let page: Awaited<ReturnType<typeof startHlsJsPage>>;
  const base = () => `${gw.url}/v1/play/d1/live/`;

  before(async () => {
    page = await startHlsJsPage();
    // 1 s segments of 25 one-frame CMAF chunks: 40 ms video chunks, 21.3 ms AAC chunks.
    src = await startDashLiveSource({
      heights: [360],
      languages: ["eng"],
      segDurationSec: 1,
      everyFrame: true,
    });
    await src.waitForSegments(3);
    gw = await startGateway("lite", {
      auth: authSection(),
      security: {
        allowed_hosts: ["127.0.0.1"],
        play_require_auth: false,
        cors_origins: [page.origin],
      },
      // media.part_target_ms left at its default (333).
      channels: [{ id: "d1", title: "d1", ingress: "dash", source_url: src.mpdUrl }],
    });
    const r = await fetch(`${gw.url}/v1/play/d1/index.m3u8`);
    assert.equal(r.status, 200, await r.text());
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
    await page?.close();
  });

  it("coalesces chunks into parts of about part_target_ms with a sane PART-TARGET", async () => {
    // Wait for two complete segments with every part listed (parts within 3 target durations).
    let text = "";
    await until(
      "parts of three segments",
      async () => {
        text = await (await fetch(`${base()}v0.m3u8`)).text();
        return new Set(partsOf(text).map((p) => p.msn)).size >= 3 ? true : undefined;
      },
      30_000,
    );
    assert.deepEqual(validateMediaPlaylist(text), [], text);
    const partTarget = Number(/#EXT-X-PART-INF:PART-TARGET=([\d.]+)/.exec(text)![1]);
    // k = floor(0.333 / 0.04) = 8 frames: 0.32 s, not one 40 ms frame per part.
    assert.equal(partTarget, 0.32, text);
    const control = /#EXT-X-SERVER-CONTROL:(.*)/.exec(text)![1]!;
    assert.equal(Number(/PART-HOLD-BACK=([\d.]+)/.exec(control)![1]), 0.96);
    const parts = partsOf(text);
    const durations = segmentDurations(text);
    const complete = [...new Set(parts.map((p) => p.msn))].filter((msn) => durations.has(msn));
    assert.ok(complete.length >= 2, text);
    for (const msn of complete) {
      const own = parts.filter((p) => p.msn === msn);
      // Only whole segments: the part window may start inside the oldest one.
      if (own[0]?.index !== 0) continue;
      // 25 frames: 8 + 8 + 8 + 1.
      assert.deepEqual(
        own.map((p) => p.durationSec),
        [0.32, 0.32, 0.32, 0.04],
        `segment ${msn}:\n${text}`,
      );
      // GOP = segment: the first part starts with the IDR frame, the others do not.
      assert.deepEqual(
        own.map((p) => p.independent),
        [true, false, false, false],
      );
      const sum = own.reduce((s, p) => s + p.durationSec, 0);
      assert.ok(Math.abs(sum - durations.get(msn)!) < 0.002, `segment ${msn}: ${sum}`);
    }
  });

  it("serves each part as its frames' CMAF chunks, and the parts make up the segment", async () => {
    const text = await (await fetch(`${base()}v0.m3u8`)).text();
    const durations = segmentDurations(text);
    const parts = partsOf(text);
    const msn = [...new Set(parts.map((p) => p.msn))].find(
      (m) => durations.has(m) && parts.some((p) => p.msn === m && p.index === 0),
    );
    assert.ok(msn !== undefined, text);
    const own = parts.filter((p) => p.msn === msn);
    const bodies: Buffer[] = [];
    for (const p of own) {
      const r = await fetch(new URL(p.uri, base()));
      assert.equal(r.status, 200);
      // Open play (no credential): a cache in front may keep one copy for every viewer.
      assert.equal(r.headers.get("cache-control"), "public, max-age=31536000, immutable");
      bodies.push(Buffer.from(await r.arrayBuffer()));
    }
    assert.deepEqual(bodies.map(moofCount), [8, 8, 8, 1]);
    const segmentUri = uriLines(text).find((u) => u.includes(`v0-${msn}.m4s`))!;
    const segment = Buffer.from(await (await fetch(new URL(segmentUri, base()))).arrayBuffer());
    assert.ok(Buffer.concat(bodies).equals(segment));
  });

  it("gives the AAC rendition parts of whole AAC frames under 333 ms", async () => {
    const text = await (await fetch(`${base()}a0.m3u8`)).text();
    const partTarget = Number(/#EXT-X-PART-INF:PART-TARGET=([\d.]+)/.exec(text)![1]);
    // 15 frames of 1024 samples at 48 kHz = 0.32 s.
    assert.equal(partTarget, 0.32, text);
    for (const p of partsOf(text)) assert.ok(p.durationSec <= partTarget, text);
  });

  it("keeps the preload hint on the next coalesced part and blocking reloads exact", async () => {
    const first = await (await fetch(`${base()}v0.m3u8`)).text();
    const hintUri = tagUris(first, "EXT-X-PRELOAD-HINT")[0]!;
    const m = /-(\d+)\.(\d+)\.m4s/.exec(hintUri)!;
    const [msn, index] = [Number(m[1]), Number(m[2])];
    const last = partsOf(first).at(-1)!;
    // RFC 8216bis 4.4.5.3: the hint names the part after the newest listed one.
    assert.ok(
      (msn === last.msn && index === last.index + 1) || (msn === last.msn + 1 && index === 0),
      `${last.msn}.${last.index} then hint ${msn}.${index}`,
    );
    const started = Date.now();
    const r = await fetch(`${base()}v0.m3u8?_HLS_msn=${msn}&_HLS_part=${index}`);
    const text = await r.text();
    assert.equal(r.status, 200);
    // RFC 8216bis 6.2.5.2: answered once that part is listed, about one part later.
    assert.ok(
      partsOf(text).some((p) => p.msn === msn && p.index === index),
      `${msn}.${index} missing:\n${text}`,
    );
    assert.ok(Date.now() - started < 5_000);
    assert.equal(r.headers.get("cache-control"), "no-cache");
    const hinted = await fetch(new URL(hintUri, base()));
    assert.equal(hinted.status, 200);
    assert.equal(hinted.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.ok(moofCount(Buffer.from(await hinted.arrayBuffer())) >= 1);
  });

  it("reports the sibling rendition's newest published part and skips exactly per CAN-SKIP-UNTIL (issue 36 item 1)", async () => {
    // RFC 8216bis 4.4.5.4: one EXT-X-RENDITION-REPORT per other rendition (none for the
    // playlist itself), LAST-MSN/LAST-PART naming a part that rendition has published: a
    // blocking reload of it for that part is answered with the part listed.
    const video = await (await fetch(`${base()}v0.m3u8`)).text();
    const reports = video.split("\n").filter((l) => l.startsWith("#EXT-X-RENDITION-REPORT:"));
    assert.equal(reports.length, 1, video);
    const report = reports[0]!;
    assert.match(report, /URI="a0\.m3u8"/);
    const lastMsn = Number(/LAST-MSN=(\d+)/.exec(report)![1]);
    const lastPart = Number(/LAST-PART=(\d+)/.exec(report)![1]);
    const audio = await (
      await fetch(`${base()}a0.m3u8?_HLS_msn=${lastMsn}&_HLS_part=${lastPart}`)
    ).text();
    assert.ok(
      partsOf(audio).some((p) => p.msn === lastMsn && p.index === lastPart),
      `${report} not in a0:\n${audio}`,
    );
    assert.ok(!audio.includes('URI="a0.m3u8"'), "a0 reports itself");
    assert.match(audio, /#EXT-X-RENDITION-REPORT:URI="v0\.m3u8",LAST-MSN=\d+,LAST-PART=\d+/);

    // RFC 8216bis 6.2.5.1: _HLS_skip=YES replaces exactly the segments that end at least
    // CAN-SKIP-UNTIL before the end of the last segment (never the last one) with
    // EXT-X-SKIP, and lists the rest as the full playlist does.
    await until(
      "eight segments in the v0 window",
      async () => {
        const t = await (await fetch(`${base()}v0.m3u8`)).text();
        return [...t.matchAll(/#EXTINF:/g)].length >= 8 ? true : undefined;
      },
      30_000,
    );
    const full = await (await fetch(`${base()}v0.m3u8`)).text();
    const durations = segmentDurations(full);
    const canSkip = Number(/CAN-SKIP-UNTIL=([\d.]+)/.exec(full)![1]);
    const delta = await (await fetch(`${base()}v0.m3u8?_HLS_skip=YES`)).text();
    const first = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(delta)![1]);
    const skipped = Number(/#EXT-X-SKIP:SKIPPED-SEGMENTS=(\d+)/.exec(delta)?.[1] ?? 0);
    const listed = [...delta.matchAll(/#EXTINF:([\d.]+),\n(v0-(\d+)\.m4s)/g)];
    assert.equal(Number(listed[0]![3]), first + skipped, delta);
    for (const [, d, , msn] of listed) durations.set(Number(msn), Number(d));
    const lastListed = Number(listed.at(-1)![3]);
    const endOf = (msn: number) => {
      let t = 0;
      for (let m = first; m <= msn; m++) t += durations.get(m) ?? Number.NaN;
      return t;
    };
    let expected = 0;
    while (
      first + expected < lastListed &&
      endOf(lastListed) - endOf(first + expected) + 1e-6 >= canSkip
    )
      expected += 1;
    assert.ok(expected > 0, `nothing to skip in:\n${full}`);
    assert.equal(skipped, expected, delta);
    assert.match(delta, /#EXT-X-VERSION:9/);
    assert.match(full, /#EXT-X-VERSION:9/);
  });

  it("behind nginx (deploy/nginx-svc-cluster.conf) each part and segment is fetched once, playlists never stored", {
    skip: hasNginx() ? false : "nginx missing",
  }, async () => {
    const nginx = await startNginxFront([gw.url]);
    try {
      const live = `${nginx.url}/v1/play/d1/live/`;
      const first = await fetch(`${live}v0.m3u8`);
      assert.equal(first.status, 200);
      const text = await first.text();
      assert.equal(first.headers.get("x-cache-status"), null, "playlists bypass the cache");
      const part = partsOf(text).at(-1)!;
      const segment = uriLines(text).at(-1)!;
      for (const uri of [part.uri, segment]) {
        const a = await fetch(new URL(uri, live));
        const b = await fetch(new URL(uri, live));
        assert.equal(a.status, 200);
        assert.equal(a.headers.get("cache-control"), "public, max-age=31536000, immutable");
        assert.equal(a.headers.get("x-cache-status"), "MISS", uri);
        assert.equal(b.headers.get("x-cache-status"), "HIT", uri);
        assert.deepEqual(Buffer.from(await b.arrayBuffer()), Buffer.from(await a.arrayBuffer()));
      }
      // Without g the gateway says no-cache, and nginx keeps nothing.
      const bare = new URL(segment, live);
      bare.search = "";
      for (let i = 0; i < 2; i++) {
        const r = await fetch(bare);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get("x-cache-status"), "MISS");
        await r.arrayBuffer();
      }
      // A blocking reload passes through (proxy_read_timeout above the gateway's 15 s).
      const hint = /-(\d+)\.(\d+)\.m4s/.exec(tagUris(text, "EXT-X-PRELOAD-HINT")[0]!)!;
      const blocked = await fetch(`${live}v0.m3u8?_HLS_msn=${hint[1]}&_HLS_part=${hint[2]}`);
      assert.equal(blocked.status, 200);
      assert.ok(
        partsOf(await blocked.text()).some(
          (p) => p.msn === Number(hint[1]) && p.index === Number(hint[2]),
        ),
      );
    } finally {
      await nginx.stop();
    }
  });

  it("hls.js (lowLatencyMode) plays it without a load timeout", {
    skip: existsSync(CHROMIUM) ? false : "chromium not installed",
    timeout: 180_000,
  }, async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const tab = await browser.newPage();
      const master = `${gw.url}/v1/play/d1/index.m3u8`;
      const { end } = await playFor(tab, page.origin, master, 10);
      const timeouts = Object.entries(end.errorCounts).filter(([k]) => /TimeOut/i.test(k));
      assert.deepEqual(timeouts, [], JSON.stringify(end.errorCounts));
      // Informational only (no timing assertion under CI load); bench/hlsjs-latency.mjs measures it.
      console.log(
        `hls.js latency ${end.latency.toFixed(2)} s, errors ${JSON.stringify(end.errorCounts)}`,
      );
    } finally {
      await browser?.close();
    }
  });
});
