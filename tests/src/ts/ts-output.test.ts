import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { playWithFfmpeg, uriLines } from "../harness/media-probe.js";
import { startTsLiveOrigin, type TsLiveOrigin } from "../harness/ts-live-origin.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { continuityErrors, pidAt, readFor } from "./stream-ts-checks.js";

// Extensions "MPEG-TS output" (issue 33). One encoder for the whole suite: every gateway
// below reads the same loopback stream, and the origin counts the connections it gets.
let origin: TsLiveOrigin;
before(async () => {
  origin = await startTsLiveOrigin({ dropAfterMs: 5000 });
});
after(async () => {
  await origin?.stop();
});

const tsChannel = (id: string, path: string) => ({
  id,
  title: id,
  ingress: "ts",
  source_url: `${origin.url}${path}`,
  user_agent: `out-agent-${id}`,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A GET that never reads its answer: the kernel buffers fill, then the gateway's queue. */
function stalledReader(url: string): Promise<{ socket: Socket; closed: Promise<number> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => {
      socket.write(`GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
      let received = 0;
      const closed = new Promise<number>((done) => {
        socket.on("data", (d) => {
          received += d.length;
        });
        socket.once("close", () => done(received));
        socket.on("error", () => undefined);
      });
      socket.pause();
      resolve({ socket, closed });
    });
    socket.once("error", reject);
  });
}

describe("stream.ts through the lite binary (extensions.ts_output)", () => {
  let gw: GatewayProcess;
  const stream = (id: string) => `${gw.url}/v1/play/${id}/stream.ts`;

  before(async () => {
    gw = await startGateway("lite", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      // A session without viewers stops soon: the stalled-reader test watches for it.
      media: { idle_stop_sec: 5 },
      extensions: { ts_output: true },
      channels: [
        tsChannel("s1", "/live.ts"),
        tsChannel("s2", "/live.ts"),
        tsChannel("flaky", "/drop.ts"),
        { id: "h1", title: "h1", ingress: "hls", source_url: "http://127.0.0.1:9/x.m3u8" },
      ],
    });
  });
  after(async () => {
    await gw?.stop();
  });

  it("HEAD answers the headers only and opens no upstream connection", async () => {
    const r = await fetch(stream("s1"), { method: "HEAD" });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "video/mp2t");
    assert.equal((await r.arrayBuffer()).byteLength, 0);
    await sleep(1000);
    assert.deepEqual(origin.count("/live.ts", "out-agent-s1"), { total: 0, open: 0 });
  });

  it("decodes in ffmpeg for 15 s without a continuity error; viewers and HLS share one upstream connection", async () => {
    const hls = (async () => {
      let segments = 0;
      const deadline = Date.now() + 12_000;
      while (Date.now() < deadline) {
        const list = await fetch(`${gw.url}/v1/play/s1/index.m3u8`);
        const uris = uriLines(await list.text());
        if (list.status === 200 && uris.length > 0) {
          const seg = await fetch(uris.at(-1)!);
          await seg.arrayBuffer();
          if (seg.status === 200) segments += 1;
        }
        await sleep(1000);
      }
      return segments;
    })();
    const viewers = [0, 1, 2].map(async (i) => {
      await sleep(i * 1500);
      return readFor(stream("s1"), 8000);
    });
    const player = await playWithFfmpeg(stream("s1"), 15);
    assert.equal(player.code, 0, player.stderr);
    assert.equal(player.stderr, "", "ffmpeg reports no error (continuity, PES, decode)");
    for (const v of await Promise.all(viewers)) {
      assert.equal(v.status, 200);
      assert.equal(v.type, "video/mp2t");
      assert.ok(v.bytes.length > 100 * 188, `read ${v.bytes.length} bytes`);
      // A viewer starts with PAT, then PMT, then follows with counters that never break.
      assert.equal(pidAt(v.bytes, 0), 0);
      assert.equal(continuityErrors(v.bytes), 0);
    }
    assert.ok((await hls) >= 5);
    assert.deepEqual(origin.count("/live.ts", "out-agent-s1"), { total: 1, open: 1 });
  });

  it("carries on across source reconnects with continuous counters", async () => {
    // `/drop.ts` cuts every connection after 5 s: two reconnects within the read.
    const v = await readFor(stream("flaky"), 14_000);
    assert.equal(v.status, 200);
    assert.ok(origin.count("/drop.ts", "out-agent-flaky").total >= 2);
    assert.equal(continuityErrors(v.bytes), 0);
    // Each PID's first packet after a switch carries discontinuity_indicator.
    let flagged = 0;
    for (let at = 0; at + 188 <= v.bytes.length; at += 188)
      if ((v.bytes[at + 3]! & 0x20) !== 0 && v.bytes[at + 4]! > 0 && v.bytes[at + 5]! & 0x80)
        flagged += 1;
    assert.ok(flagged >= 2, `${flagged} packets with discontinuity_indicator`);
  });

  it("drops a stalled reader without hurting the others", async () => {
    const stalled = await stalledReader(stream("s2"));
    const player = await playWithFfmpeg(stream("s2"), 15);
    assert.equal(player.code, 0, player.stderr);
    assert.equal(player.stderr, "");
    // The kernel takes about 4 MB of a stalled socket (~35 s of this stream) before the
    // gateway's own queue grows; once it is dropped the stalled viewer no longer holds the
    // session, which stops after media.idle_stop_sec and lets its upstream connection go.
    const t0 = Date.now();
    while (origin.count("/live.ts", "out-agent-s2").open > 0 && Date.now() - t0 < 90_000)
      await sleep(500);
    assert.deepEqual(origin.count("/live.ts", "out-agent-s2"), { total: 1, open: 0 });
    // Reading again: only what was queued before the drop arrives, then the end. The
    // gateway's side of the socket has sat on a zero window for half a minute by now, so
    // its kernel may resume sending only at its next zero-window probe, whose backoff has
    // grown to 10-25 s (seen in `ss`: `timer:(persist,12sec)`); the bound leaves room for it.
    stalled.socket.resume();
    const received = await Promise.race([stalled.closed, sleep(45_000).then(() => -1)]);
    assert.notEqual(received, -1, "the stalled connection was closed by the gateway");
    assert.ok(received < 16 * 1024 * 1024, `${received} bytes`);
  });

  it("an hls channel whose source is down answers 502 naming why, no fake stream", async () => {
    const r = await requestJson(stream("h1"));
    assert.equal(r.status, 502, r.text);
    assert.equal(r.body.error.code, "upstream_error");
    assert.match(r.body.error.message, /stream\.ts of this channel failed: the source playlist/);
  });
});

describe("stream.ts is not a route with the switch off", () => {
  it("answers 404 while index.m3u8 plays", async () => {
    const gw = await startGateway("lite", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      channels: [tsChannel("off", "/live.ts")],
    });
    try {
      const r = await requestJson(`${gw.url}/v1/play/off/stream.ts`);
      assert.equal(r.status, 404, r.text);
      assert.equal(r.body.error.code, "not_found");
      assert.equal(origin.count("/live.ts", "out-agent-off").total, 0);
    } finally {
      await gw.stop();
    }
  });
});

describe("stream.ts through the full binary: credentials", () => {
  let gw: GatewayProcess;
  let admin: string;

  before(async () => {
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"] },
      extensions: { ts_output: true },
      channels: [tsChannel("k1", "/live.ts"), { ...tsChannel("k2", "/live.ts"), max_viewers: 1 }],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
  });

  it("needs the play credential on /v1/play and a playback key on /p/", async () => {
    const open = await requestJson(`${gw.url}/v1/play/k1/stream.ts`);
    assert.equal(open.status, 401, open.text);
    assert.equal(open.body.error.code, "unauthorized");
    const bad = await requestJson(`${gw.url}/p/v1nonsense/play/k1/stream.ts`);
    assert.equal(bad.status, 401, bad.text);
    const withToken = await readFor(`${gw.url}/v1/play/k1/stream.ts?token=${admin}`, 4000);
    assert.equal(withToken.status, 200);
    assert.equal(pidAt(withToken.bytes, 0), 0);
    const key = await requestJson(`${gw.url}/v1/admin/access-tokens`, {
      token: admin,
      body: { name: "tuner" },
    });
    assert.equal(key.status, 201, key.text);
    const viaKey = await readFor(`${gw.url}/p/${key.body.token}/play/k1/stream.ts`, 4000);
    assert.equal(viaKey.status, 200);
    assert.equal(viaKey.type, "video/mp2t");
    assert.equal(continuityErrors(viaKey.bytes), 0);
    // The access log is written behind the request: poll for it.
    let logged = "";
    for (let i = 0; i < 25 && !logged.includes("/stream.ts"); i++) {
      const logs = await requestJson(`${gw.url}/v1/admin/access-logs`, { token: admin });
      assert.equal(logs.status, 200, logs.text);
      logged = logs.text;
      if (!logged.includes("/stream.ts")) await sleep(200);
    }
    assert.match(logged, /\/play\/k1\/stream\.ts/, "the /p/ use is in the access log");
    assert.equal(origin.count("/live.ts", "out-agent-k1").total, 1);
    // Metrics count these requests under their route template, never the key.
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    assert.match(metrics, /route="\/p\/:token\/play\/:id\/stream\.ts",status="200"/);
    assert.ok(!metrics.includes(key.body.token));
  });

  it("a stream.ts viewer holds a max_viewers seat while it reads; HEAD takes none", async () => {
    const url = `${gw.url}/v1/play/k2/stream.ts?token=${admin}`;
    const first = readFor(url, 6000);
    await sleep(3000);
    const second = await requestJson(url);
    assert.equal(second.status, 429, second.text);
    assert.equal(second.body.error.code, "too_many_requests");
    const head = await fetch(url, { method: "HEAD" });
    assert.equal(head.status, 200);
    const v = await first;
    assert.equal(v.status, 200);
    assert.ok(v.bytes.length > 0);
  });

  it("a viewer right after an edit gets the channel as it is now, not the session the edit stops", async () => {
    const url = `${gw.url}/v1/play/k1/stream.ts?token=${admin}`;
    const running = readFor(url, 6000);
    await sleep(2000);
    const d = await requestJson(`${gw.url}/v1/admin/channels/k1`, { token: admin });
    const { play_url: _p, revision: _r, updated_at: _u, ...write } = d.body.channel;
    const r = await requestJson(`${gw.url}/v1/admin/channels/k1`, {
      method: "PUT",
      token: admin,
      body: { ...write, title: "k1 renamed" },
    });
    assert.equal(r.status, 200, r.text);
    // The session of the old revision stops within a second of the edit; this viewer,
    // arriving before that, is not cut off with it.
    const after = await readFor(url, 5000);
    assert.equal(after.status, 200);
    assert.equal(after.endedEarly, false, "the new viewer's stream ran its whole read");
    assert.equal(pidAt(after.bytes, 0), 0);
    assert.equal((await running).endedEarly, true, "the old session's viewer was closed");
  });
});
