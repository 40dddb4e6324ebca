import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway, tempDir } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { playWithFfmpeg, uriLines } from "../harness/media-probe.js";
import { startTsLiveOrigin, type TsLiveOrigin } from "../harness/ts-live-origin.js";
import { until } from "../harness/until.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { pidAt } from "./stream-ts-checks.js";

// One encoder for the whole suite (issue 33): every gateway below reads the same stream.
let origin: TsLiveOrigin;
const scratch = tempDir("svc-ts-");
before(async () => {
  origin = await startTsLiveOrigin({ dropAfterMs: 4000 });
});
after(async () => {
  await origin?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const tsChannel = (id: string, path: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: id,
  ingress: "ts",
  source_url: `${origin.url}${path}`,
  user_agent: `ts-agent-${id}`,
  ...extra,
});

async function get(url: string) {
  const r = await fetch(url, { redirect: "manual" });
  const bytes = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, bytes, text: bytes.toString("utf8") };
}

/** The media playlist a master playlist (`index.m3u8`) names; the answer itself when not 200. */
async function getMedia(url: string) {
  const master = await get(url);
  if (master.status !== 200) return master;
  const uri = master.text.split("\n").find((l) => l !== "" && !l.startsWith("#"));
  assert.ok(uri, master.text);
  return get(uri);
}

/** EXTINF durations and absolute URIs of a media playlist. */
function entries(text: string): { duration: number; uri: string }[] {
  const lines = text.split("\n");
  const out: { duration: number; uri: string }[] = [];
  lines.forEach((l, i) => {
    const m = /^#EXTINF:([\d.]+),/.exec(l);
    if (m) out.push({ duration: Number(m[1]), uri: lines[i + 1]! });
  });
  return out;
}

const mediaSequence = (text: string) => Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)?.[1]);

/** The video duration and codecs ffprobe reads from one segment's bytes. */
function probeSegment(bytes: Buffer, name: string) {
  const path = join(scratch, name);
  writeFileSync(path, bytes);
  const r = spawnSync(
    "ffprobe",
    ["-v", "error", "-of", "json", "-show_entries", "stream=codec_name,duration", path],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  const streams = (JSON.parse(r.stdout) as { streams: { codec_name: string; duration: string }[] })
    .streams;
  return {
    codecs: streams.map((s) => s.codec_name).sort(),
    videoSec: Number(streams.find((s) => s.codec_name === "h264")?.duration),
  };
}

describe("ingress: ts through the lite binary", () => {
  let gw: GatewayProcess;
  const play = (id: string) => `${gw.url}/v1/play/${id}/index.m3u8`;

  before(async () => {
    gw = await startGateway("lite", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      channels: [
        tsChannel("t1", "/live.ts", { headers: { "x-origin-key": "k-ts" } }),
        tsChannel("junk", "/garbage.ts"),
        tsChannel("flaky", "/drop.ts"),
        tsChannel("missing", "/nothing-here.ts"),
      ],
    });
  });
  after(async () => {
    await gw?.stop();
  });

  it("answers a master playlist with CODECS and RESOLUTION read from the PMT and SPS", async () => {
    const r = await get(play("t1"));
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get("content-type") ?? "", /mpegurl/);
    assert.equal(r.headers.get("cache-control"), "no-cache");
    const m =
      /^#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=(\d+),CODECS="(avc1\.[0-9a-f]{6},mp4a\.40\.2)",RESOLUTION=320x240\n(\S+)\n$/.exec(
        r.text,
      );
    assert.ok(m, r.text);
    assert.ok(Number(m[1]) > 10_000, `BANDWIDTH ${m[1]}`);
    // x264's ultrafast preset writes Constrained Baseline (profile_idc 66, constraint 0xC0).
    assert.match(m[2]!, /^avc1\.42c0/);
    const u = new URL(m[3]!);
    assert.equal(u.pathname, "/v1/play/t1/live/media.m3u8");
    assert.match(u.searchParams.get("g") ?? "", /^[0-9a-z]+$/);
    // Another generation's media playlist redirects to the current one.
    const old = new URL(u);
    old.searchParams.set("g", "0old0");
    const moved = await get(old.href);
    assert.equal(moved.status, 307);
    assert.equal(new URL(moved.headers.get("location") ?? "", gw.url).href, u.href);
  });

  it("answers a media playlist of TS segments under live/ with the generation", async () => {
    const r = await getMedia(play("t1"));
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get("content-type") ?? "", /mpegurl/);
    assert.equal(r.headers.get("cache-control"), "no-cache");
    assert.match(
      r.text,
      /^#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\d+\n/,
    );
    const list = entries(r.text);
    assert.ok(list.length >= 1);
    for (const e of list) {
      const u = new URL(e.uri);
      assert.equal(u.origin, gw.url);
      assert.match(u.pathname, /^\/v1\/play\/t1\/live\/s-\d+\.ts$/);
      assert.match(u.searchParams.get("g") ?? "", /^[0-9a-z]+$/);
      // -g 25 at 25 fps: an IDR every second, cut at the first one at or after 2 s.
      assert.ok(Math.abs(e.duration - 2) < 0.01, `EXTINF ${e.duration}`);
    }
  });

  it("serves each segment as immutable MPEG-TS that starts with PAT and PMT and ffprobe reads", async () => {
    const text = (await getMedia(play("t1"))).text;
    const e = entries(text).at(-1)!;
    const seg = await get(e.uri);
    assert.equal(seg.status, 200);
    assert.equal(seg.headers.get("content-type"), "video/mp2t");
    assert.equal(seg.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(seg.bytes.length % 188, 0);
    assert.equal(seg.bytes[0], 0x47);
    assert.equal(pidAt(seg.bytes, 0), 0, "PAT first");
    assert.equal(seg.bytes[5], 0x00, "table_id 0");
    assert.equal(seg.bytes[188 + 5], 0x02, "then the PMT");
    const p = probeSegment(seg.bytes, "t1-last.ts");
    assert.deepEqual(p.codecs, ["aac", "h264"]);
    assert.ok(Math.abs(p.videoSec - e.duration) < 0.1, `${p.videoSec} vs EXTINF ${e.duration}`);
    const again = await get(e.uri);
    assert.deepEqual(again.bytes, seg.bytes, "the bytes at one URL never change");
    const other = new URL(e.uri);
    other.searchParams.set("g", "0old0");
    const gone = await requestJson(other.href);
    assert.equal(gone.status, 410);
    assert.equal(gone.body.error.code, "not_found");
    const noG = new URL(e.uri);
    noG.search = "";
    assert.equal((await get(noG.href)).headers.get("cache-control"), "no-cache");
    assert.equal((await requestJson(`${gw.url}/v1/play/t1/live/v0.m3u8`)).status, 404);
  });

  it("plays 10 s with ffmpeg, and several viewers share one upstream connection", async () => {
    const viewers = Array.from({ length: 4 }, async () => {
      const deadline = Date.now() + 8000;
      let fetched = 0;
      while (Date.now() < deadline) {
        const list = entries((await getMedia(play("t1"))).text);
        const seg = await get(list.at(-1)!.uri);
        assert.equal(seg.status, 200);
        fetched += 1;
        await new Promise((r) => setTimeout(r, 1000));
      }
      return fetched;
    });
    const [player, ...counts] = await Promise.all([playWithFfmpeg(play("t1"), 10), ...viewers]);
    assert.equal(player.code, 0, player.stderr);
    assert.equal(player.stderr, "");
    for (const n of counts) assert.ok(n >= 4);
    assert.deepEqual(origin.count("/live.ts", "ts-agent-t1"), { total: 1, open: 1 });
    const conn = origin.connections.find((c) => c.headers["user-agent"] === "ts-agent-t1")!;
    assert.equal(conn.headers["x-origin-key"], "k-ts");
  });

  it("answers 502 upstream_error within seconds for a source that is not MPEG-TS", async () => {
    const t0 = Date.now();
    const r = await requestJson(play("junk"));
    const took = Date.now() - t0;
    assert.equal(r.status, 502, r.text);
    assert.equal(r.body.error.code, "upstream_error");
    assert.match(r.body.error.message, /not MPEG-TS/);
    assert.match(r.body.error.message, /HLS playlist/);
    assert.ok(took < 5000, `${took} ms`);
    const missing = await requestJson(play("missing"));
    assert.equal(missing.status, 502);
    assert.match(missing.body.error.message, /upstream answered 404/);
  });

  it("reconnects a dropped source with a discontinuity, never resetting the media sequence", async () => {
    let last = -1;
    const text = await until(
      "a discontinuity after the origin dropped the connection",
      async () => {
        const r = await getMedia(play("flaky"));
        assert.equal(r.status, 200, r.text);
        const msn = mediaSequence(r.text);
        assert.ok(msn >= last, `media sequence went back: ${last} → ${msn}`);
        last = msn;
        return r.text.includes("#EXT-X-DISCONTINUITY\n") ? r.text : undefined;
      },
      30_000,
    );
    assert.ok(origin.count("/drop.ts", "ts-agent-flaky").total >= 2);
    // Every entry still plays: the segment after the tag was cut from the new connection.
    const list = entries(text);
    for (const e of list) assert.ok(e.duration > 0 && e.duration < 4.5, `EXTINF ${e.duration}`);
    const player = await playWithFfmpeg(play("flaky"), 6);
    assert.equal(player.code, 0, player.stderr);
  });
});

describe("ingress: ts through the lite binary: a stalled source", () => {
  it("drops a connection that falls silent for 5 s and reconnects with a discontinuity", async () => {
    const gw = await startGateway("lite", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      channels: [tsChannel("silent", "/stall.ts")],
    });
    try {
      const play = `${gw.url}/v1/play/silent/index.m3u8`;
      assert.equal((await get(play)).status, 200);
      const text = await until(
        "a discontinuity after the source fell silent",
        async () => {
          const r = await getMedia(play);
          return r.text.includes("#EXT-X-DISCONTINUITY\n") ? r.text : undefined;
        },
        30_000,
      );
      const conns = origin.connections.filter((c) => c.headers["user-agent"] === "ts-agent-silent");
      assert.ok(conns.length >= 2, `${conns.length} connections`);
      assert.equal(conns[0]!.open, false, "the silent connection was closed by the gateway");
      assert.ok(entries(text).length >= 2);
    } finally {
      await gw.stop();
    }
  });
});

describe("ingress: ts through the full binary", () => {
  let gw: GatewayProcess;
  let admin: string;

  before(async () => {
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      channels: [tsChannel("f1", "/live.ts")],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
  });

  it("plays 10 s with ffmpeg and reports the session as mode ts", async () => {
    const player = await playWithFfmpeg(`${gw.url}/v1/play/f1/index.m3u8`, 10);
    assert.equal(player.code, 0, player.stderr);
    assert.equal(player.stderr, "");
    const status = await requestJson(`${gw.url}/v1/status`, { token: admin });
    assert.equal(status.status, 200);
    const s = status.body.sessions.find((x: any) => x.channel_id === "f1");
    assert.equal(s.mode, "ts");
    assert.equal(s.state, "running");
    assert.equal(s.engine, "native");
    assert.equal(s.pack_mode, "hls");
    assert.ok(s.packager.segments_published >= 3);
    assert.equal(origin.count("/live.ts", "ts-agent-f1").total, 1);
  });

  it("accepts ingress ts in the admin API and plays the channel it created", async () => {
    const created = await requestJson(`${gw.url}/v1/admin/channels`, {
      token: admin,
      body: {
        id: "f2",
        title: "TS by API",
        ingress: "ts",
        source_url: `${origin.url}/live.ts`,
        user_agent: "ts-agent-f2",
      },
    });
    assert.ok(created.status === 200 || created.status === 201, created.text);
    assert.equal(created.body.id, "f2");
    const bad = await requestJson(`${gw.url}/v1/admin/channels`, {
      token: admin,
      body: { id: "f3", title: "x", ingress: "rtmp", source_url: `${origin.url}/live.ts` },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /"ts"/);
    const r = await getMedia(`${gw.url}/v1/play/f2/index.m3u8`);
    assert.equal(r.status, 200, r.text);
    const seg = await get(uriLines(r.text).at(-1)!);
    assert.equal(seg.status, 200);
    assert.equal(seg.headers.get("content-type"), "video/mp2t");
  });
});
