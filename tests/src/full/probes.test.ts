import assert from "node:assert/strict";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { requestJson } from "../harness/http-client.js";
import type { Origin } from "../harness/origin-server.js";
import {
  assertError,
  createApiToken,
  type FullGateway,
  keysOf,
  startFull,
} from "./full-fixture.js";
import { KEY_A, KEY_B, KID_A, KID_B, startProbeOrigin } from "./probe-origin.js";

// Loopback only. The origin at 127.0.0.1 is in security.allowed_hosts; the one at 127.0.0.2
// and the name `localhost` are not, so the egress guard refuses them.
const MAX_MPD = 4096;
const CHANNEL_SECRET = "Bearer chan-secret-auth";
/** Strings that must never appear in a probe answer (or the gateway's logs). */
const SECRETS = [
  "chan-secret",
  "cfg-user",
  "cfg-pass",
  "cfg-query-secret",
  "redir-user",
  "redir-pass",
  "redirect-query-secret",
  "#frag",
  "probe-agent",
];
const HTTP_FIELDS = ["content_type", "dur_ms", "final_url", "ok", "status"];
const DASH_FIELDS = ["dur_ms", "inspection", "ok"];
const INSPECTION_FIELDS = ["encrypted", "kids", "native_supported", "reason", "suggested_engine"];

function channels(origin: string, refused: string) {
  const hls = (id: string, source_url: string) => ({ id, title: id, ingress: "hls", source_url });
  const dash = (id: string, path: string) => ({
    id,
    title: id,
    ingress: "dash",
    source_url: `${origin}${path}`,
  });
  return [
    {
      ...hls(
        "hls-ok",
        `${origin.replace("://", "://cfg-user:cfg-pass@")}/redirect?token=cfg-query-secret`,
      ),
      headers: { Authorization: CHANNEL_SECRET, "X-Api-Key": "chan-secret-key" },
      user_agent: "probe-agent/1",
    },
    { id: "hls-upstream", title: "u", ingress: "hls", upstream: "origin", path: "live/index.m3u8" },
    hls("hls-404", `${origin}/status/404?token=cfg-query-secret`),
    hls("hls-down", "http://127.0.0.1:9/down.m3u8?token=cfg-query-secret"),
    hls("hls-refused", `${refused}/live/index.m3u8?token=cfg-query-secret`),
    { ...dash("dash-clear", "/dash/clear.mpd"), headers: { Authorization: CHANNEL_SECRET } },
    dash("dash-list", "/dash/list.mpd"),
    dash("dash-enc-a", "/dash/enc-a.mpd"),
    dash("dash-enc-b", "/dash/enc-b.mpd"),
    { ...dash("dash-enc-b-own", "/dash/enc-b.mpd"), keys: { [KID_B]: KEY_B } },
    dash("dash-big", "/dash/big.mpd"),
    dash("dash-404", "/status/404"),
    { id: "dash-refused", title: "r", ingress: "dash", source_url: `${refused}/dash/clear.mpd` },
  ];
}

describe("full: probes", () => {
  let origin: Origin;
  let refused: Origin;
  let f: FullGateway;
  /** Every answer body this suite received, checked for secrets at the end. */
  const answers: string[] = [];

  const post = async (path: string, body?: unknown, token = f.admin) => {
    const r = await requestJson(`${f.base}${path}`, {
      method: "POST",
      token,
      ...(body === undefined ? {} : { body }),
    });
    answers.push(r.text);
    return r;
  };
  const probe = (id: string, token?: string) =>
    post(`/v1/admin/channels/${id}/probe`, undefined, token);
  const sourceProbe = (body: unknown, token?: string) =>
    post("/v1/admin/source-probes", body, token);

  before(async () => {
    origin = await startProbeOrigin(MAX_MPD);
    refused = await startProbeOrigin(MAX_MPD, "127.0.0.2");
    f = await startFull({
      security: { allowed_hosts: ["127.0.0.1"], max_playlist_bytes: MAX_MPD },
      media: { keys: { [KID_A]: KEY_A } },
      egress: { proxies: [{ id: "corp", url: "http://127.0.0.1:9" }] },
      upstreams: [{ id: "origin", base_url: `${origin.url}/` }],
      channels: channels(origin.url, refused.url),
    });
  });
  after(async () => {
    await f.gw.stop();
    await origin.close();
    await refused.close();
  });

  it("HLS: status, content type and the final URL after a redirect, reduced", async () => {
    const before = origin.hits.length;
    const r = await probe("hls-ok");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(keysOf(r.body), HTTP_FIELDS);
    assert.deepEqual(
      { ...r.body, dur_ms: 0 },
      {
        ok: true,
        status: 200,
        content_type: "application/vnd.apple.mpegurl",
        final_url: `${origin.url}/live/index.m3u8`,
        dur_ms: 0,
      },
    );
    assert.ok(Number.isInteger(r.body.dur_ms) && r.body.dur_ms >= 0);
    // Both hops carried the channel's headers and user agent.
    const hops = origin.hits.slice(before);
    assert.deepEqual(
      hops.map((h) => h.url),
      ["/redirect?token=cfg-query-secret", "/live/index.m3u8?sig=redirect-query-secret"],
    );
    for (const h of hops) {
      assert.equal(h.headers.authorization, CHANNEL_SECRET);
      assert.equal(h.headers["x-api-key"], "chan-secret-key");
      assert.equal(h.headers["user-agent"], "probe-agent/1");
    }
  });

  it("HLS: an upstream-and-path source resolves; failures are 200 with ok false", async () => {
    const viaUpstream = await probe("hls-upstream");
    assert.equal(viaUpstream.body.ok, true, viaUpstream.text);
    assert.equal(viaUpstream.body.final_url, `${origin.url}/live/index.m3u8`);

    const notFound = await probe("hls-404");
    assert.equal(notFound.status, 200);
    assert.deepEqual(
      { ...notFound.body, dur_ms: 0 },
      {
        ok: false,
        status: 404,
        content_type: "text/plain",
        final_url: `${origin.url}/status/404`,
        dur_ms: 0,
      },
    );

    const down = await probe("hls-down");
    assert.equal(down.status, 200);
    assert.deepEqual(
      { ...down.body, dur_ms: 0 },
      {
        ok: false,
        status: 0,
        content_type: "",
        final_url: "http://127.0.0.1:9/down.m3u8",
        dur_ms: 0,
        error: "upstream connection failed (ECONNREFUSED)",
      },
    );
  });

  it("DASH: a clear MPD is native; the channel's headers reach the origin", async () => {
    const r = await probe("dash-clear");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(keysOf(r.body), DASH_FIELDS);
    assert.equal(r.body.ok, true);
    assert.deepEqual(r.body.inspection, {
      native_supported: true,
      suggested_engine: "native",
      reason: null,
      encrypted: false,
      kids: [],
    });
    const hit = origin.hits.findLast((h) => h.path === "/dash/clear.mpd");
    assert.equal(hit?.headers.authorization, CHANNEL_SECRET);
  });

  it("DASH: a SegmentList MPD suggests ffmpeg and says why", async () => {
    const r = await probe("dash-list");
    assert.equal(r.body.ok, true, r.text);
    assert.deepEqual(keysOf(r.body.inspection), INSPECTION_FIELDS);
    assert.equal(r.body.inspection.native_supported, false);
    assert.equal(r.body.inspection.suggested_engine, "ffmpeg");
    assert.match(r.body.inspection.reason, /Representation v1 uses SegmentList addressing/);
  });

  it("DASH: an encrypted MPD is native only when its KID has a key", async () => {
    for (const [id, kid] of [
      ["dash-enc-a", KID_A], // key in media.keys
      ["dash-enc-b-own", KID_B], // key in the channel's own keys
    ] as const) {
      const r = await probe(id);
      assert.deepEqual(
        r.body.inspection,
        {
          native_supported: true,
          suggested_engine: "native",
          reason: null,
          encrypted: true,
          kids: [kid],
        },
        id,
      );
    }
    const missing = await probe("dash-enc-b");
    assert.equal(missing.body.ok, true);
    assert.equal(missing.body.inspection.native_supported, false);
    assert.equal(missing.body.inspection.encrypted, true);
    assert.deepEqual(missing.body.inspection.kids, [KID_B]);
    assert.match(
      missing.body.inspection.reason,
      new RegExp(`no key is configured for KID ${KID_B}`),
    );
    // Key values never appear, configured or not.
    assert.doesNotMatch(missing.text + answers.join(""), new RegExp(`${KEY_A}|${KEY_B}`));
  });

  it("DASH: an MPD over security.max_playlist_bytes and an upstream 404 are ok false", async () => {
    const big = await probe("dash-big");
    assert.equal(big.status, 200);
    assert.deepEqual(
      { ...big.body, dur_ms: 0 },
      {
        ok: false,
        dur_ms: 0,
        inspection: null,
        error: `the MPD is larger than security.max_playlist_bytes (${MAX_MPD} bytes)`,
      },
    );
    const missing = await probe("dash-404");
    assert.deepEqual([missing.body.ok, missing.body.error], [false, "upstream answered 404"]);
  });

  it("guard refusal: a stored channel's probe reports it, nothing reaches the address", async () => {
    for (const id of ["hls-refused", "dash-refused"]) {
      const r = await probe(id);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.ok, false);
      assert.match(r.body.error, /egress guard refused the source \(target address is loopback\)/);
      assert.match(r.body.error, /security\.allowed_hosts/);
    }
    const hls = await probe("hls-refused");
    assert.equal(hls.body.status, 0);
    assert.equal(hls.body.final_url, `${refused.url}/live/index.m3u8`);
    assert.equal(refused.hits.length, 0);
  });

  it("unknown channel: 404; no refresh scope or no admin role: 403, nothing fetched", async () => {
    assertError(await probe("no-such-channel"), 404, "not_found");
    const hitsBefore = origin.hits.length;
    const { token: noRefresh } = await createApiToken(f.base, f.admin, ["read", "write", "delete"]);
    assertError(await probe("hls-ok", noRefresh), 403, "missing_scope");
    assertError(
      await sourceProbe(
        { title: "x", ingress: "hls", source_url: `${origin.url}/live/index.m3u8` },
        noRefresh,
      ),
      403,
      "missing_scope",
    );
    assertError(await probe("hls-ok", await f.viewer()), 403, "forbidden");
    assert.equal(origin.hits.length, hitsBefore);
    const { token: refresh } = await createApiToken(f.base, f.admin, ["refresh"]);
    const allowed = await probe("hls-upstream", refresh);
    assert.deepEqual([allowed.status, allowed.body.ok], [200, true]);
  });

  it("source probe, HLS: a draft without id, validated like a create, reports proxy_id", async () => {
    const draft = {
      title: "Draft",
      ingress: "hls",
      source_url: `${origin.url}/redirect?token=cfg-query-secret`,
      headers: { Authorization: CHANNEL_SECRET },
    };
    const r = await sourceProbe(draft);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(keysOf(r.body), [...HTTP_FIELDS, "proxy_id"].sort());
    assert.deepEqual(
      { ...r.body, dur_ms: 0 },
      {
        ok: true,
        status: 200,
        content_type: "application/vnd.apple.mpegurl",
        final_url: `${origin.url}/live/index.m3u8`,
        dur_ms: 0,
        proxy_id: "direct",
      },
    );
    assert.equal(origin.hits.at(-1)?.headers.authorization, CHANNEL_SECRET);
    // Without rules or a default profile both go direct (a profile binding: tests/src/egress).
    for (const egress of [{ mode: "direct" }, { mode: "auto" }]) {
      const e = await sourceProbe({ ...draft, id: "draft-1", egress });
      assert.deepEqual([e.status, e.body.proxy_id], [200, "direct"], e.text);
    }
    const upstream = await sourceProbe({
      title: "u",
      ingress: "hls",
      upstream: "origin",
      path: "live/index.m3u8",
    });
    assert.equal(upstream.body.ok, true, upstream.text);
  });

  it("source probe: invalid bodies are 400 before anything is fetched", async () => {
    const hitsBefore = origin.hits.length;
    const good = { title: "t", ingress: "hls", source_url: `${origin.url}/live/index.m3u8` };
    for (const [body, message] of [
      [{ ...good, title: undefined }, /^title: /],
      [{ ...good, surprise: 1 }, /surprise/],
      [{ ...good, id: "bad id!" }, /^id: /],
      [{ ...good, ingress: "rtmp" }, /^ingress: /],
      [{ ...good, source_url: "ftp://127.0.0.1/x" }, /^source_url: /],
      [{ ...good, upstream: "origin", path: "x" }, /^source_url: /],
      [{ ...good, source_url: "", upstream: "nope", path: "x" }, /unknown upstream/],
      [{ ...good, egress: { mode: "profile", profile_id: "nope" } }, /unknown proxy profile/],
      [{ ...good, egress: { mode: "direct", new_proxy: {} } }, /new_proxy/],
    ] as const) {
      const r = await sourceProbe(body);
      assertError(r, 400, "invalid_request");
      assert.match(r.body.error.message, message, JSON.stringify(body));
    }
    assert.equal(origin.hits.length, hitsBefore);
  });

  it("source probe: a blank header value is not filled from the stored channel", async () => {
    const r = await sourceProbe({
      id: "hls-ok",
      title: "again",
      ingress: "hls",
      source_url: `${origin.url}/live/index.m3u8`,
      headers: { Authorization: "", "X-Api-Key": "" },
    });
    assert.equal(r.body.ok, true, r.text);
    const hit = origin.hits.at(-1)!;
    assert.equal(hit.headers.authorization, undefined);
    assert.equal(hit.headers["x-api-key"], undefined);
  });

  it("source probe, DASH: {ok, dur_ms, inspection} with the draft's own keys, no proxy_id", async () => {
    const draft = { title: "d", ingress: "dash", source_url: `${origin.url}/dash/enc-b.mpd` };
    const without = await sourceProbe(draft);
    assert.equal(without.status, 200, without.text);
    assert.deepEqual(keysOf(without.body), DASH_FIELDS);
    assert.equal(without.body.inspection.native_supported, false);
    const withKey = await sourceProbe({ ...draft, keys: { [KID_B]: KEY_B } });
    assert.deepEqual(keysOf(withKey.body), DASH_FIELDS);
    assert.equal(withKey.body.inspection.native_supported, true, withKey.text);
    assert.deepEqual(withKey.body.inspection.kids, [KID_B]);
  });

  it("source probe: a target the guard refuses is 403 forbidden, nothing is dialled", async () => {
    const targets = [
      ["hls", `${refused.url}/live/index.m3u8?token=cfg-query-secret`],
      ["dash", `${refused.url}/dash/clear.mpd`],
      ["hls", `http://localhost:${origin.port}/live/index.m3u8`],
    ];
    const hitsBefore = origin.hits.length;
    for (const [ingress, source_url] of targets) {
      const r = await sourceProbe({ title: "r", ingress, source_url });
      assertError(r, 403, "forbidden");
      assert.match(
        r.body.error.message,
        /egress guard refused the source \(target address is loopback\)/,
      );
    }
    assert.equal(refused.hits.length, 0);
    assert.equal(origin.hits.length, hitsBefore);
  });

  it("no answer and no log line carries a header value, a URL credential or a query", () => {
    assert.ok(answers.length > 30, String(answers.length));
    const logs = f.gw.stdout() + f.gw.stderr();
    for (const secret of SECRETS) {
      for (const text of answers) assert.ok(!text.includes(secret), `${secret} in ${text}`);
      assert.ok(!logs.includes(secret), `${secret} in the logs`);
    }
  });
});

describe("full: DASH probes without media.keys", () => {
  let origin: Origin;
  let f: FullGateway;
  before(async () => {
    origin = await startProbeOrigin(MAX_MPD);
    f = await startFull({
      security: { allowed_hosts: ["127.0.0.1"] },
      channels: [
        { id: "dash", title: "d", ingress: "dash", source_url: `${origin.url}/dash/clear.mpd` },
        { id: "hls", title: "h", ingress: "hls", source_url: `${origin.url}/live/index.m3u8` },
      ],
    });
  });
  after(async () => {
    await f.gw.stop();
    await origin.close();
  });

  it("answers 400 invalid_request naming media.keys, without fetching; HLS still probes", async () => {
    const post = (path: string, body?: unknown) =>
      requestJson(`${f.base}${path}`, {
        method: "POST",
        token: f.admin,
        ...(body ? { body } : {}),
      });
    for (const r of [
      await post("/v1/admin/channels/dash/probe"),
      await post("/v1/admin/source-probes", {
        title: "d",
        ingress: "dash",
        source_url: `${origin.url}/dash/clear.mpd`,
        keys: { [KID_A]: KEY_A },
      }),
    ]) {
      assertError(r, 400, "invalid_request");
      assert.match(r.body.error.message, /media\.keys/);
    }
    assert.equal(origin.count("/dash/"), 0);
    const hls = await post("/v1/admin/channels/hls/probe");
    assert.deepEqual([hls.status, hls.body.ok, hls.body.status], [200, true, 200]);
  });
});

/** 188-byte packets on PID 0x100 with a payload of 0xff: only the grid matters to a probe. */
function tsBurst(packets: number, cc: { n: number }): Buffer {
  const b = Buffer.alloc(packets * 188, 0xff);
  for (let i = 0; i < packets; i++) {
    b.set([0x47, 0x01, 0x00, 0x10 | (cc.n++ & 0xf)], i * 188);
  }
  return b;
}

describe("full: probes tell MPEG-TS from HLS by the bytes", () => {
  let server: Server;
  let tsBase = "";
  let f: FullGateway;
  /** Connections to the endless TS path still open at the origin. */
  const open = new Set<ServerResponse>();
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === "/feed") {
        // A live TS under a content type that lies; it never ends on its own.
        res.writeHead(200, { "content-type": "text/html" });
        open.add(res);
        res.once("close", () => open.delete(res));
        const cc = { n: 0 };
        const tick = setInterval(() => res.write(tsBurst(20, cc)), 50);
        res.once("close", () => clearInterval(tick));
        return;
      }
      if (req.url === "/list") {
        res.writeHead(200, { "content-type": "video/mp2t" });
        res.end("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg.ts\n");
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    tsBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    f = await startFull({
      security: { allowed_hosts: ["127.0.0.1"] },
      channels: [
        { id: "ts-feed", title: "t", ingress: "ts", source_url: `${tsBase}/feed` },
        { id: "hls-but-ts", title: "h", ingress: "hls", source_url: `${tsBase}/feed` },
        { id: "ts-but-hls", title: "p", ingress: "ts", source_url: `${tsBase}/list` },
      ],
    });
  });
  after(async () => {
    await f.gw.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const probe = (id: string) =>
    requestJson(`${f.base}/v1/admin/channels/${id}/probe`, { method: "POST", token: f.admin });

  it("a TS origin with a wrong content type probes as TS, and the connection is let go", async () => {
    const ts = await probe("ts-feed");
    assert.equal(ts.status, 200, ts.text);
    assert.deepEqual(keysOf(ts.body), [...HTTP_FIELDS, "format"].sort());
    assert.deepEqual([ts.body.ok, ts.body.content_type, ts.body.format], [true, "text/html", "ts"]);
    const hls = await probe("hls-but-ts");
    assert.deepEqual([hls.body.ok, hls.body.format], [true, "ts"], hls.text);
    const list = await probe("ts-but-hls");
    assert.deepEqual([list.body.content_type, list.body.format], ["video/mp2t", "hls"], list.text);
    const t0 = Date.now();
    while (open.size > 0 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 50));
    assert.equal(open.size, 0, "the probe closed its connection to the live stream");
  });
});
