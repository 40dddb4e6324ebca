import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertError, type FullGateway, startFull } from "../full/full-fixture.js";
import { requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { type LoopbackProxy, startHttpProxy } from "./loopback-proxies.js";

// Issue 30 items 3 and 4: POST /v1/admin/egress/test refuses a destination that is not a
// public address with 403 `forbidden` (spec "Egress": target safety has its own status) in
// every spelling and after a redirect, and puts unsaved proxies (`proxy_url`, changed `draft`
// profiles) under the same guard. Only `127.0.0.1:<origin port>` is allow-listed: the traps on
// other ports of 127.0.0.1 and on 127.0.0.2 record any request that gets through.

/** Spellings of the trap `127.0.0.1:<one>` and `127.0.0.2:<two>` that the URL parser accepts. */
function spellings(one: number, two: number): string[] {
  const first = [
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "017700000001",
    "0x7f.0.0.1",
    "127.1",
    "127.0.0.1.",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "localhost",
  ].map((h) => `http://${h}:${one}`);
  const second = ["127.0.0.2", "2130706434", "[::ffff:127.0.0.2]"].map((h) => `http://${h}:${two}`);
  return [...first, ...second];
}

describe("POST /v1/admin/egress/test: refused destinations and unsaved proxies are 403", () => {
  let origin: Origin;
  let trapOne: Origin;
  let trapTwo: Origin;
  let proxy: LoopbackProxy;
  let full: FullGateway;
  let targets: string[] = [];

  const test = (body: unknown) =>
    requestJson(`${full.base}/v1/admin/egress/test`, { token: full.admin, body });
  const trapHits = () => trapOne.hits.length + trapTwo.hits.length;
  const assertRefused = (r: Awaited<ReturnType<typeof test>>, field: string) => {
    assertError(r, 403, "forbidden");
    assert.ok(r.body.error.message.startsWith(`${field}: `), r.text);
  };

  before(async () => {
    trapOne = await startOrigin();
    trapTwo = await startOrigin({ host: "127.0.0.2" });
    targets = spellings(trapOne.port, trapTwo.port);
    origin = await startOrigin({
      routes: (req, res) => {
        const hop = /^\/hop\/(\d+)$/.exec(req.url ?? "");
        if (hop === null) return false;
        res.writeHead(302, { location: `${targets[Number(hop[1])]}/trap/after-redirect` }).end();
        return true;
      },
    });
    proxy = await startHttpProxy();
    full = await startFull({
      security: { allowed_hosts: [`127.0.0.1:${origin.port}`] },
      channels: [
        { id: "trap-source", title: "T", ingress: "hls", source_url: `${targets[0]}/trap/src` },
      ],
      // A saved profile: its address was chosen by a writer of the configuration and is not
      // under the guard (docs/egress.md), though 127.0.0.1:<proxy port> is not allow-listed.
      egress: { proxies: [{ id: "saved", url: `http://127.0.0.1:${proxy.port}` }] },
    });
  });
  after(async () => {
    await full?.gw.stop();
    await Promise.all([origin, trapOne, trapTwo, proxy].map((x) => x?.close()));
  });

  it("custom: every spelling of a loopback address is 403 before dialling, direct and via a proxy", async () => {
    for (const t of targets) {
      assertRefused(await test({ target: "custom", url: `${t}/trap/direct` }), "url");
      const carried = proxy.carried.length;
      assertRefused(await test({ url: `${t}/trap/via`, proxy_id: "saved" }), "url");
      assert.equal(proxy.carried.length, carried, `${t}: the proxy was asked`);
    }
    assert.equal(trapHits(), 0, JSON.stringify([...trapOne.hits, ...trapTwo.hits]));
  });

  it("source: a channel whose source is not a public address is 403", async () => {
    assertRefused(await test({ target: "source", channel_id: "trap-source" }), "url");
    assert.equal(trapHits(), 0);
  });

  it("after a redirect from an allowed origin: 403, the redirect target never dialled", async () => {
    for (let i = 0; i < targets.length; i += 1) {
      const hops = origin.count(`/hop/${i}`);
      assertRefused(await test({ target: "custom", url: `${origin.url}/hop/${i}` }), "url");
      assert.equal(origin.count(`/hop/${i}`), hops + 1, "the allowed first hop was fetched");
    }
    assert.equal(trapHits(), 0, JSON.stringify([...trapOne.hits, ...trapTwo.hits]));
  });

  it("an allowed destination still answers 200 with the result, via the saved profile too", async () => {
    const direct = await test({ url: `${origin.url}/status/204` });
    assert.equal(direct.status, 200, direct.text);
    assert.equal(direct.body.outcome, "success", direct.text);
    const saved = await test({ url: `${origin.url}/status/204`, proxy_id: "saved" });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.via_proxy, true, saved.text);
    assert.equal(saved.body.outcome, "success", saved.text);
  });

  it("proxy_url: an unsaved proxy at a refused address is 403, never dialled", async () => {
    const carried = proxy.carried.length;
    const unsaved = [
      ...targets,
      // SOCKS URLs are not special to the URL parser: only literal spellings are used here,
      // so nothing is handed to a resolver that might ask a DNS server.
      `socks5h://127.0.0.2:${trapTwo.port}`,
      `socks5://[::ffff:127.0.0.1]:${trapOne.port}`,
      // The saved profile's own address: saved it is trusted, unsaved it is not.
      `http://127.0.0.1:${proxy.port}`,
    ];
    for (const p of unsaved) {
      const r = await test({ url: `${origin.url}/status/204`, proxy_url: p });
      assertRefused(r, "proxy_url");
    }
    assert.equal(proxy.carried.length, carried);
    assert.equal(trapHits(), 0, JSON.stringify([...trapOne.hits, ...trapTwo.hits]));
  });

  it("draft: a new or changed profile at a refused address is 403; the saved one unchanged passes", async () => {
    const draft = (url: string) => ({
      default: "saved",
      proxies: [{ id: "saved", url }],
      rules: [],
    });
    const carried = proxy.carried.length;
    for (const url of [`http://localhost:${proxy.port}`, `http://2130706433:${trapOne.port}`]) {
      const r = await test({ url: `${origin.url}/status/204`, draft: draft(url) });
      assertRefused(r, "draft.proxies[0].url");
    }
    assert.equal(proxy.carried.length, carried);
    const same = await test({
      url: `${origin.url}/status/204`,
      draft: draft(`http://127.0.0.1:${proxy.port}`),
    });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.outcome, "success", same.text);
    assert.equal(proxy.carried.length, carried + 1);
    assert.equal(trapHits(), 0);
  });

  it("a proxy URL with a path or query is 400 naming the field", async () => {
    for (const p of [
      `http://127.0.0.1:${proxy.port}/path`,
      `http://127.0.0.1:${proxy.port}/?q=1`,
    ]) {
      const r = await test({ url: `${origin.url}/status/204`, proxy_url: p });
      assertError(r, 400, "invalid_request");
      assert.equal(r.body.error.message, "proxy_url: must not carry a path, query or fragment");
      const d = await test({
        url: `${origin.url}/status/204`,
        draft: { proxies: [{ id: "x", url: p }] },
      });
      assertError(d, 400, "invalid_request");
      assert.equal(
        d.body.error.message,
        "draft.proxies[0].url: must not carry a path, query or fragment",
      );
    }
  });
});
