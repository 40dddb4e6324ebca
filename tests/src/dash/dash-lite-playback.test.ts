import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { validateMasterPlaylist, validateMediaPlaylist } from "@svc/playback/playlist-validator";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { playWithFfmpeg, probeMp4, tagUris, uriLines } from "../harness/media-probe.js";
import { hasNginx, startNginxFront } from "../harness/nginx-front.js";
import { authSection, VIEWER_PASSWORD } from "../harness/users.js";

/** Fetches a URL the gateway wrote; returns status, headers and the body bytes. */
async function get(url: string) {
  const r = await fetch(url, { redirect: "manual" });
  const bytes = new Uint8Array(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, bytes, text: Buffer.from(bytes).toString("utf8") };
}

/** MSN and index of the EXT-X-PRELOAD-HINT part (`v0-12.3.m4s`). */
function hint(text: string): { msn: number; part: number; uri: string } {
  const uri = tagUris(text, "EXT-X-PRELOAD-HINT")[0]!;
  const m = /-(\d+)\.(\d+)\.m4s/.exec(uri)!;
  return { msn: Number(m[1]), part: Number(m[2]), uri };
}

function mediaSequence(text: string): number {
  return Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)?.[1]);
}

describe("DASH channel through the lite binary (native engine, LL-HLS)", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  let token: string;
  let master: string;
  let masterUrl: string;
  const url = (u: string, base = masterUrl) => new URL(u, base).href;

  before(async () => {
    src = await startDashLiveSource();
    await src.waitForSegments(3);
    gw = await startGateway("lite", {
      auth: authSection(["d1"]),
      security: { allowed_hosts: ["127.0.0.1"] },
      channels: [
        {
          id: "d1",
          title: "Live DASH",
          ingress: "dash",
          source_url: src.mpdUrl,
          prefer_height: 200,
          preferred_audio_languages: ["de", "en"],
          headers: { "x-origin-key": "k-123" },
          user_agent: "dash-test-agent/1",
        },
      ],
    });
    token = await login(gw.url, "viewer", VIEWER_PASSWORD);
    masterUrl = `${gw.url}/v1/play/d1/index.m3u8?token=${token}`;
    const r = await get(masterUrl);
    assert.equal(r.status, 200, r.text);
    master = r.text;
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("needs a credential like every play route", async () => {
    const r = await requestJson(`${gw.url}/v1/play/d1/index.m3u8`);
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, "unauthorized");
  });

  it("publishes a well-formed master playlist with the chosen renditions", () => {
    assert.deepEqual(validateMasterPlaylist(master), []);
    // prefer_height 200 → the 180p representation; German first and DEFAULT, then English.
    const inf = master.split("\n").find((l) => l.startsWith("#EXT-X-STREAM-INF:"))!;
    assert.match(inf, /RESOLUTION=320x180/);
    assert.match(inf, /CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2"/);
    assert.match(inf, /FRAME-RATE=25\.000/);
    assert.match(inf, /AUDIO="audio"/);
    const media = master.split("\n").filter((l) => l.startsWith("#EXT-X-MEDIA:"));
    assert.equal(media.length, 2);
    assert.match(media[0]!, /LANGUAGE="de",DEFAULT=YES/);
    assert.match(media[1]!, /LANGUAGE="en",DEFAULT=NO/);
    const urls = [...uriLines(master), ...tagUris(master, "EXT-X-MEDIA")];
    assert.equal(urls.length, 3);
    for (const u of urls) {
      const parsed = new URL(u);
      assert.equal(parsed.origin, gw.url);
      assert.match(parsed.pathname, /^\/v1\/play\/d1\/live\/(v0|a0|a1)\.m3u8$/);
      assert.equal(parsed.searchParams.get("token"), token);
      assert.match(parsed.searchParams.get("g") ?? "", /^[0-9a-z]+$/);
    }
  });

  it("publishes LL-HLS media playlists that follow RFC 8216bis", async () => {
    for (const name of ["v0", "a0", "a1"]) {
      const r = await get(url(`live/${name}.m3u8?token=${token}`, `${gw.url}/v1/play/d1/`));
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("cache-control"), "no-cache");
      assert.match(r.headers.get("content-type") ?? "", /mpegurl/);
      assert.deepEqual(validateMediaPlaylist(r.text), [], `${name}:\n${r.text}`);
      assert.match(r.text, /#EXT-X-TARGETDURATION:2\n/);
      assert.match(r.text, /#EXT-X-MAP:URI="[^"]+-init-0\.mp4\?g=/);
      assert.match(r.text, /#EXT-X-PROGRAM-DATE-TIME:\d{4}-\d\d-\d\dT/);
      const control = /#EXT-X-SERVER-CONTROL:(.*)/.exec(r.text)![1]!;
      assert.match(control, /CAN-BLOCK-RELOAD=YES/);
      const partTarget = Number(/PART-TARGET=([\d.]+)/.exec(r.text)![1]);
      assert.ok(Number(/PART-HOLD-BACK=([\d.]+)/.exec(control)![1]) >= 3 * partTarget - 1e-9);
      assert.ok(Number(/CAN-SKIP-UNTIL=([\d.]+)/.exec(control)![1]) >= 12);
      assert.ok(Number(/[^-]HOLD-BACK=([\d.]+)/.exec(control)![1]) >= 6);
      assert.ok(partTarget > 0.4 && partTarget < 0.6, `PART-TARGET ${partTarget}`);
      assert.ok(tagUris(r.text, "EXT-X-PART").length >= 2);
      assert.equal(tagUris(r.text, "EXT-X-PRELOAD-HINT").length, 1);
      const reports = tagUris(r.text, "EXT-X-RENDITION-REPORT").sort();
      assert.deepEqual(
        reports,
        ["a0.m3u8", "a1.m3u8", "v0.m3u8"].filter((u) => u !== `${name}.m3u8`),
      );
      for (const u of [...uriLines(r.text), ...tagUris(r.text, "EXT-X-PART")])
        assert.equal(new URL(u, masterUrl).searchParams.get("token"), token);
    }
  });

  it("serves init sections and segments that decode as the source's codecs", async () => {
    const base = `${gw.url}/v1/play/d1/live/`;
    for (const [name, sourceRep] of [
      ["v0", "1"],
      ["a0", "3"],
    ] as const) {
      const pl = await get(`${base}${name}.m3u8?token=${token}`);
      const map = url(tagUris(pl.text, "EXT-X-MAP")[0]!, base);
      const seg = url(uriLines(pl.text)[0]!, base);
      const init = await get(map);
      const media = await get(seg);
      for (const r of [init, media]) {
        assert.equal(r.status, 200);
        assert.equal(r.headers.get("cache-control"), "private, max-age=31536000, immutable");
      }
      const ours = probeMp4([init.bytes, media.bytes]);
      assert.equal(ours.errors, "");
      assert.ok(ours.frames > 0);
      // The source's own init + a complete segment of the same representation. Not
      // the first: the source's sliding window deletes old segments, and on a slow
      // host it may already have; the second newest is complete and still there.
      const segments = readdirSync(src.dir)
        .filter((f) => f.startsWith(`chunk-stream${sourceRep}-`) && f.endsWith(".m4s"))
        .sort();
      assert.ok(segments.length >= 2, `source segments: ${segments.join(", ")}`);
      const theirs = probeMp4([
        readFileSync(join(src.dir, `init-stream${sourceRep}.m4s`)),
        readFileSync(join(src.dir, segments[segments.length - 2]!)),
      ]);
      const pick = (s: (typeof ours.streams)[number]) => [
        s.codec_type,
        s.codec_name,
        s.profile,
        s.width,
        s.height,
        s.sample_rate,
      ];
      assert.deepEqual(ours.streams.map(pick), theirs.streams.map(pick));
      assert.equal(ours.streams[0]?.codec_name, name === "v0" ? "h264" : "aac");
      if (name === "v0") assert.equal(ours.streams[0]?.height, 180);
      // A part is a CMAF chunk: an independent one decodes after the init section.
      const independent = pl.text
        .split("\n")
        .filter((l) => l.startsWith("#EXT-X-PART:") && l.includes("INDEPENDENT=YES"))
        .map((l) => /URI="([^"]+)"/.exec(l)![1]!);
      const part = await get(url(independent.at(-1)!, base));
      assert.equal(part.status, 200);
      // The URL needs the viewer's token: no shared cache may hand it to anyone else.
      assert.equal(part.headers.get("cache-control"), "private, max-age=31536000, immutable");
      assert.ok(probeMp4([init.bytes, part.bytes]).frames > 0);
    }
  });

  it("blocks a playlist reload until the requested part exists", async () => {
    const base = `${gw.url}/v1/play/d1/live/`;
    const first = await get(`${base}v0.m3u8?token=${token}`);
    const h = hint(first.text);
    const r = await get(`${base}v0.m3u8?token=${token}&_HLS_msn=${h.msn}&_HLS_part=${h.part}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("cache-control"), "no-cache");
    // RFC 8216bis 6.2.5.2: the answer holds segment msn with part `part`, or a later one.
    const listed = tagUris(r.text, "EXT-X-PART").map((u) => {
      const m = /-(\d+)\.(\d+)\.m4s/.exec(u)!;
      return { msn: Number(m[1]), part: Number(m[2]) };
    });
    assert.ok(
      listed.some((p) => p.msn > h.msn || (p.msn === h.msn && p.part >= h.part)),
      `${h.msn}.${h.part} not reached:\n${r.text}`,
    );
    assert.deepEqual(validateMediaPlaylist(r.text), []);
  });

  it("answers a preload-hinted part once written, and 503 for a part not hinted", async () => {
    const base = `${gw.url}/v1/play/d1/live/`;
    const pl = await get(`${base}a0.m3u8?token=${token}`);
    const h = hint(pl.text);
    const hinted = await get(url(h.uri, base).replace("?", `?token=${token}&`));
    assert.equal(hinted.status, 200);
    assert.equal(hinted.headers.get("cache-control"), "private, max-age=31536000, immutable");
    // A CMAF chunk: [styp|prft] moof mdat.
    const head = Buffer.from(hinted.bytes.subarray(4, 8)).toString("latin1");
    assert.ok(["styp", "prft", "moof"].includes(head), head);
    assert.ok(Buffer.from(hinted.bytes).includes("moof"));
    assert.ok(Buffer.from(hinted.bytes).includes("mdat"));
    // Streamed while written, it is byte for byte the part the playlist then lists.
    const listed = await get(`${base}a0-${h.msn}.${h.part}.m4s?token=${token}`);
    assert.equal(listed.status, 200);
    // Without `g` the name is not pinned to a generation: not immutable.
    assert.equal(listed.headers.get("cache-control"), "no-cache");
    assert.deepEqual(Buffer.from(hinted.bytes), Buffer.from(listed.bytes));
    const ahead = await requestJson(`${base}a0-${h.msn + 1}.3.m4s?token=${token}`);
    assert.equal(ahead.status, 503);
    assert.equal(ahead.body.error.code, "unavailable");
  });

  it("rejects bad delivery directives with 400", async () => {
    const base = `${gw.url}/v1/play/d1/live/v0.m3u8?token=${token}`;
    const pl = await get(base);
    const last = mediaSequence(pl.text) + uriLines(pl.text).length - 1;
    for (const q of ["&_HLS_part=1", `&_HLS_msn=${last + 10}`, "&_HLS_msn=x", "&_HLS_skip=NO"]) {
      const r = await requestJson(`${base}${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error.code, "invalid_request");
    }
  });

  it("refuses file names with separators and unknown names", async () => {
    const base = `${gw.url}/v1/play/d1/live/`;
    for (const f of ["..%2Fv0.m3u8", "%5Cv0.m3u8", "v0.m3u8%00", "..%5C", "v0..m3u8"]) {
      const r = await requestJson(`${base}${f}?token=${token}`);
      assert.equal(r.status, 400, f);
    }
    for (const f of ["v9.m3u8", "v0-init-0.mp4.bak", "index.m3u8", "v0-1.m4s.tmp"]) {
      const r = await requestJson(`${base}${f}?token=${token}`);
      assert.equal(r.status, 404, f);
    }
  });

  it("redirects files of another generation (307) or answers 410", async () => {
    const base = `${gw.url}/v1/play/d1/live/`;
    const pl = await get(`${base}v0.m3u8?token=${token}`);
    const g = new URL(uriLines(pl.text)[0]!, base).searchParams.get("g");
    const msn = mediaSequence(pl.text);
    const moved = await get(`${base}v0.m3u8?g=old1&token=${token}&_HLS_msn=${msn}`);
    assert.equal(moved.status, 307);
    const to = new URL(moved.headers.get("location")!);
    assert.equal(to.pathname, "/v1/play/d1/live/v0.m3u8");
    assert.equal(to.searchParams.get("g"), g);
    assert.equal(to.searchParams.get("token"), token);
    assert.equal(to.searchParams.get("_HLS_msn"), String(msn));
    assert.equal(moved.headers.get("cache-control"), "no-cache");
    const seg = await get(`${base}v0-${msn}.m4s?g=old1&token=${token}`);
    assert.equal(seg.status, 307);
    assert.equal(seg.headers.get("cache-control"), "no-cache");
    const goneSeg = await requestJson(`${base}v0-${msn + 500}.m4s?g=old1&token=${token}`);
    assert.equal(goneSeg.status, 410);
    assert.equal(goneSeg.headers.get("retry-after"), "2");
    assert.equal(goneSeg.body.error.code, "not_found");
  });

  it("behind nginx (deploy/nginx-svc-cluster.conf) a segment that needs a token is never stored", {
    skip: hasNginx() ? false : "nginx missing",
  }, async () => {
    const nginx = await startNginxFront([gw.url]);
    try {
      const live = `${nginx.url}/v1/play/d1/live/`;
      const pl = await get(`${live}v0.m3u8?token=${token}`);
      assert.equal(pl.status, 200);
      const seg = url(uriLines(pl.text).at(-1)!, live);
      for (let i = 0; i < 2; i++) {
        const r = await get(seg);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get("cache-control"), "private, max-age=31536000, immutable");
        assert.equal(r.headers.get("x-cache-status"), "MISS");
      }
      // Without the token nginx has nothing to hand out: the gateway answers 401.
      const bare = new URL(seg);
      bare.searchParams.delete("token");
      assert.equal((await get(bare.href)).status, 401);
    } finally {
      await nginx.stop();
    }
  });

  it("sends the channel's headers and user agent to the origin", () => {
    const media = src.requests.filter((r) => r.path.includes("chunk-stream"));
    assert.ok(media.length > 0);
    for (const r of [...media, ...src.requests.filter((x) => x.path.endsWith(".mpd"))]) {
      assert.equal(r.headers["user-agent"], "dash-test-agent/1");
      assert.equal(r.headers["x-origin-key"], "k-123");
    }
    // Only the chosen representations are fetched: 180p video, both audio sets.
    const reps = new Set(media.map((r) => /chunk-stream(\d)/.exec(r.path)?.[1]));
    assert.deepEqual([...reps].sort(), ["1", "2", "3"]);
  });

  it("plays 10 s with ffmpeg", async () => {
    const r = await playWithFfmpeg(masterUrl, 10);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
  });

  it("answers delta updates with EXT-X-SKIP once the window passes the skip boundary", async () => {
    const base = `${gw.url}/v1/play/d1/live/v0.m3u8?token=${token}`;
    let pl = await get(base);
    const want = mediaSequence(pl.text) + 8;
    // Blocking reloads (each up to 3 target durations) until segment `want` exists.
    for (let i = 0; i < 12 && !uriLines(pl.text).some((u) => u.startsWith(`v0-${want}.m4s`)); i++) {
      const last = mediaSequence(pl.text) + uriLines(pl.text).length - 1;
      pl = await get(`${base}&_HLS_msn=${Math.min(want, last + 1)}`);
    }
    const delta = await get(`${base}&_HLS_skip=YES`);
    assert.equal(delta.status, 200);
    const skipped = Number(/#EXT-X-SKIP:SKIPPED-SEGMENTS=(\d+)/.exec(delta.text)?.[1]);
    assert.ok(skipped >= 1, delta.text);
    assert.deepEqual(validateMediaPlaylist(delta.text), []);
    const full = await get(base);
    assert.equal(mediaSequence(delta.text), mediaSequence(full.text));
    assert.ok(uriLines(delta.text).length < uriLines(full.text).length);
  });
});
