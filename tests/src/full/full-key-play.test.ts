import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { assertError } from "./full-fixture.js";
import { type LoopbackOrigin, SEGMENT_BYTES, startLoopbackOrigin } from "./loopback-origin.js";

describe("full: /p/{token}/play/{id}/… with a playback key", () => {
  let origin: LoopbackOrigin;
  let gw: GatewayProcess;
  let admin: string;
  const url = (p: string) => `${gw.url}${p}`;
  const createKey = async (body: Record<string, unknown>) => {
    const r = await requestJson(url("/v1/admin/access-tokens"), { token: admin, body });
    assert.equal(r.status, 201, r.text);
    return r.body as { id: string; token: string };
  };

  before(async () => {
    origin = await startLoopbackOrigin();
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"] },
      channels: [
        { id: "live", title: "Live", ingress: "hls", source_url: `${origin.url}/live/index.m3u8` },
        {
          id: "other",
          title: "Other",
          ingress: "hls",
          source_url: `${origin.url}/live/index.m3u8`,
        },
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw.stop();
    await origin.close();
  });

  it("plays through the key: rewritten URLs keep the key in the path and carry no credential query", async () => {
    const k = await createKey({ name: "player", channel_ids: ["live"] });
    // Headers are not read on /p/: a bogus bearer changes nothing.
    const res = await fetch(url(`/p/${k.token}/play/live/index.m3u8`), {
      headers: { authorization: "Bearer nonsense" },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /mpegurl/i);
    const text = await res.text();
    const lines = text.split("\n");
    assert.equal(lines[0], "#EXTM3U");
    assert.ok(lines.includes("#EXT-X-MEDIA-SEQUENCE:100"));
    const media = lines.filter((l) => l !== "" && !l.startsWith("#"));
    assert.equal(media.length, 2);
    for (const m of media) {
      assert.ok(m.startsWith(`${gw.url}/p/${k.token}/play/live/u/`), m);
      assert.match(m, /\.ts\?sig=[A-Za-z0-9_-]+$/);
      assert.ok(!m.includes("token="));
    }
    const seg = await fetch(media[0]!);
    assert.equal(seg.status, 200);
    assert.deepEqual(Buffer.from(await seg.arrayBuffer()), SEGMENT_BYTES);
    const status = await requestJson(url("/v1/status"), { token: admin });
    assert.ok(status.body.bytes_out >= SEGMENT_BYTES.length);
    assert.ok(status.body.requests >= 2);
    const metrics = await (await fetch(url("/metrics"))).text();
    const out = Number(/^svc_playback_bytes_out_total (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(out >= SEGMENT_BYTES.length, `bytes out ${out}`);
  });

  it("refuses out-of-scope channels (403) and dead keys (401), and logs every use", async () => {
    const k = await createKey({ name: "scoped", channel_ids: ["live"] });
    assertError(await requestJson(url(`/p/${k.token}/play/other/index.m3u8`)), 403, "forbidden");
    const media = (await (await fetch(url(`/p/${k.token}/play/live/index.m3u8`))).text())
      .split("\n")
      .filter((l) => l.startsWith("http"));
    const tampered = media[0]!.replace("sig=", "sig=x");
    assertError(await requestJson(tampered), 403, "forbidden");
    const rv = await requestJson(url(`/v1/admin/access-tokens/${k.id}/revoke`), {
      method: "POST",
      token: admin,
    });
    assert.equal(rv.status, 200);
    assertError(await requestJson(url(`/p/${k.token}/play/live/index.m3u8`)), 401, "unauthorized");
    assertError(await requestJson(media[1]!), 401, "unauthorized");
    const logs = await requestJson(url(`/v1/admin/access-logs?token_id=${k.id}`), { token: admin });
    const seen = logs.body.access_logs
      .map((a: any) => [a.channel_id, a.status, a.path.split("/").slice(0, 5).join("/")])
      .reverse();
    const p = `/p/${k.token.slice(0, 10)}…/play`;
    assert.deepEqual(seen, [
      ["other", 403, `${p}/other`],
      ["live", 200, `${p}/live`],
      ["live", 403, `${p}/live`],
      ["live", 401, `${p}/live`],
      ["live", 401, `${p}/live`],
    ]);
    assert.ok(!logs.text.includes(k.token));
  });
});
