import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { readBodyCapped } from "./body-ceiling.js";
import { createEgress, type EgressResult } from "./egress-client.js";
import type { Resolver } from "./guarded-connector.js";

// Loopback only: the allow-listed origin listens on 127.0.0.1, the refused one on 127.0.0.2.
interface Origin {
  server: Server;
  port: number;
  hits: string[];
  connections: number;
}

async function startOrigin(host: string, handler: (path: string, res: any, o: Origin) => void) {
  const o: Origin = { server: undefined as any, port: 0, hits: [], connections: 0 };
  o.server = createServer((req, res) => {
    o.hits.push(req.url ?? "");
    handler(req.url ?? "", res, o);
  });
  o.server.on("connection", () => {
    o.connections += 1;
  });
  await new Promise<void>((r) => o.server.listen(0, host, r));
  o.port = (o.server.address() as AddressInfo).port;
  return o;
}

const fakeDns: Resolver = async (name) => {
  if (name === "origin.test") return ["127.0.0.1"];
  if (name === "mixed.test") return ["127.0.0.1", "8.8.8.8"];
  throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
};

const timeouts = { connectMs: 1000, firstByteMs: 500, idleMs: 500 };

describe("egress", () => {
  let ok: Origin;
  let forbidden: Origin;
  before(async () => {
    ok = await startOrigin("127.0.0.1", (path, res, o) => {
      if (path.startsWith("/hop/")) {
        const n = Number(path.slice(5));
        res.writeHead(302, { location: n === 0 ? "/final" : `/hop/${n - 1}` }).end();
      } else if (path === "/to-refused") {
        res.writeHead(307, { location: `http://127.0.0.2:${forbidden.port}/x` }).end();
      } else if (path === "/stall") {
        // never answers
      } else if (path === "/big") {
        res.end(Buffer.alloc(10_000, 1));
      } else {
        res.end(`hello ${path} ${o.port}`);
      }
    });
    forbidden = await startOrigin("127.0.0.2", (_p, res) => res.end("must not be reached"));
  });
  after(() => {
    ok.server.closeAllConnections();
    ok.server.close();
    forbidden.server.close();
  });

  const egress = () =>
    createEgress({ allowedHosts: ["127.0.0.1", "origin.test"], timeouts, resolve: fakeDns });

  async function text(r: EgressResult): Promise<string> {
    assert.ok(r.ok, JSON.stringify(r));
    return await r.body.text();
  }

  it("fetches from an allow-listed loopback host", async () => {
    const e = egress();
    const r = await e.request(`http://127.0.0.1:${ok.port}/a`);
    assert.equal(await text(r), `hello /a ${ok.port}`);
    const byName = await e.request(`http://origin.test:${ok.port}/b`);
    assert.equal(await text(byName), `hello /b ${ok.port}`);
    await e.close();
  });

  const refusedTargets: [string, (port: number) => string][] = [
    ["a loopback literal not allow-listed", (p) => `http://127.0.0.2:${p}/x`],
    ["an IPv4-mapped IPv6 literal", (p) => `http://[::ffff:127.0.0.2]:${p}/x`],
    ["a short-form IPv4 literal", (p) => `http://127.2:${p}/x`],
    ["an allow-listed address spelled as mapped IPv6", (p) => `http://[::ffff:127.0.0.1]:${p}/x`],
  ];
  for (const [name, url] of refusedTargets) {
    it(`refuses ${name} without connecting`, async () => {
      const e = egress();
      const before = forbidden.connections + ok.connections;
      const r = await e.request(url(forbidden.port));
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.kind, "refused");
      assert.equal(forbidden.connections + ok.connections, before);
      await e.close();
    });
  }

  it("dials an allow-listed IPv6 loopback literal and refuses it when not listed", async () => {
    const v6 = await startOrigin("::1", (path, res) => res.end(`v6 ${path}`));
    const allowed = createEgress({ allowedHosts: ["::1"], timeouts });
    const r = await allowed.request(`http://[::1]:${v6.port}/x`);
    assert.equal(await text(r), "v6 /x");
    const refused = createEgress({ allowedHosts: ["127.0.0.1"], timeouts });
    const before = v6.connections;
    const no = await refused.request(`http://[::1]:${v6.port}/x`);
    assert.deepEqual(no.ok ? "ok" : no.kind, "refused");
    assert.equal(v6.connections, before);
    await Promise.all([allowed.close(), refused.close()]);
    v6.server.closeAllConnections();
    v6.server.close();
  });

  it("refuses a name when any of its addresses is not public", async () => {
    const e = createEgress({ allowedHosts: [], timeouts, resolve: fakeDns });
    const r = await e.request(`http://mixed.test:${ok.port}/x`);
    assert.deepEqual(r.ok ? "ok" : r.kind, "refused");
    await e.close();
  });

  it("checks every redirect hop and follows at most five", async () => {
    const e = egress();
    const five = await e.request(`http://127.0.0.1:${ok.port}/hop/4`);
    assert.equal(await text(five), `hello /final ${ok.port}`);
    assert.ok(five.ok && five.url.endsWith("/final"));
    const six = await e.request(`http://127.0.0.1:${ok.port}/hop/5`);
    assert.deepEqual(six.ok ? "ok" : six.kind, "too_many_redirects");
    const hits = forbidden.hits.length;
    const toRefused = await e.request(`http://127.0.0.1:${ok.port}/to-refused`);
    assert.deepEqual(toRefused.ok ? "ok" : toRefused.kind, "refused");
    assert.equal(forbidden.hits.length, hits);
    await e.close();
  });

  it("times out a stalled upstream and reports network failures", async () => {
    const e = egress();
    const stall = await e.request(`http://127.0.0.1:${ok.port}/stall`);
    assert.deepEqual(stall.ok ? "ok" : stall.kind, "timeout");
    const dns = await e.request("http://nowhere.test/x");
    assert.deepEqual(dns.ok ? "ok" : [dns.kind, dns.cause], ["network", "dns"]);
    const scheme = await e.request("file:///etc/passwd");
    assert.deepEqual(scheme.ok ? "ok" : scheme.kind, "invalid_url");
    await e.close();
  });

  it("aborts with the caller's signal", async () => {
    const e = egress();
    const ac = new AbortController();
    const pending = e.request(`http://127.0.0.1:${ok.port}/stall`, { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    const r = await pending;
    assert.deepEqual(r.ok ? "ok" : r.kind, "aborted");
    await e.close();
  });

  it("reads a body up to a ceiling and refuses beyond it", async () => {
    const e = egress();
    const small = await e.request(`http://127.0.0.1:${ok.port}/big`);
    assert.ok(small.ok);
    const within = await readBodyCapped(small.body, 10_000);
    assert.ok(within.ok && within.bytes.length === 10_000);
    const big = await e.request(`http://127.0.0.1:${ok.port}/big`);
    assert.ok(big.ok);
    const over = await readBodyCapped(big.body, 9_999);
    assert.deepEqual(over, { ok: false, kind: "too_large" });
    await e.close();
  });
});
