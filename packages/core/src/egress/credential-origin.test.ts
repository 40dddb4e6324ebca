import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createEgress } from "./egress-client.js";
import { isSensitiveHeader } from "./sensitive-headers.js";

// Issue 12 item 4: sensitive headers go to the channel source's origin only. Two loopback
// origins on different ports are two origins.

interface Origin {
  server: Server;
  url: string;
  seen: { path: string; headers: IncomingHttpHeaders }[];
}

async function startOrigin(route: (path: string) => string | undefined): Promise<Origin> {
  const o: Origin = { server: createServer(), url: "", seen: [] };
  o.server.on("request", (req, res) => {
    const path = req.url ?? "/";
    o.seen.push({ path, headers: req.headers });
    const location = route(path);
    if (location !== undefined) res.writeHead(302, { location }).end();
    else res.end("ok");
  });
  await new Promise<void>((r) => o.server.listen(0, "127.0.0.1", r));
  o.url = `http://127.0.0.1:${(o.server.address() as AddressInfo).port}`;
  return o;
}

const HEADERS = {
  Authorization: "Bearer s1",
  Cookie: "c=s2",
  "Proxy-Authorization": "Basic s3",
  "X-Auth-Token": "s4",
  "X-Client-Secret": "s5",
  "X-Api-Key": "s6",
  "X-Plain": "visible",
  "User-Agent": "ua/1",
};

describe("egress: credentialOrigin", () => {
  let a: Origin;
  let b: Origin;
  const egress = createEgress({
    allowedHosts: ["127.0.0.1"],
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
  });
  before(async () => {
    b = await startOrigin((p) => (p === "/to-a" ? `${a.url}/back-on-a` : undefined));
    a = await startOrigin((p) => (p === "/to-b" ? `${b.url}/from-a` : undefined));
  });
  after(async () => {
    await egress.close();
    for (const o of [a, b]) {
      o.server.closeAllConnections();
      o.server.close();
    }
  });

  const get = async (url: string, credentialOrigin?: string) => {
    const r = await egress.request(url, {
      headers: HEADERS,
      ...(credentialOrigin === undefined ? {} : { credentialOrigin }),
    });
    assert.ok(r.ok);
    await r.body.dump();
  };
  const last = (o: Origin, path: string) => o.seen.filter((s) => s.path === path).at(-1)!.headers;
  const secrets = (h: IncomingHttpHeaders) => Object.keys(h).filter(isSensitiveHeader).sort();

  it("names the spec's sensitive headers", () => {
    assert.deepEqual(Object.keys(HEADERS).filter(isSensitiveHeader), [
      "Authorization",
      "Cookie",
      "Proxy-Authorization",
      "X-Auth-Token",
      "X-Client-Secret",
      "X-Api-Key",
    ]);
  });

  it("sends them to the credential origin and to no other", async () => {
    await get(`${a.url}/own`, a.url);
    assert.equal(secrets(last(a, "/own")).length, 6);
    await get(`${b.url}/other`, a.url);
    const other = last(b, "/other");
    assert.deepEqual(secrets(other), []);
    assert.equal(other["x-plain"], "visible");
    assert.equal(other["user-agent"], "ua/1");
  });

  it("drops them on a cross-origin redirect and never restores them in that chain", async () => {
    await get(`${a.url}/to-b`, a.url);
    assert.equal(secrets(last(a, "/to-b")).length, 6);
    assert.deepEqual(secrets(last(b, "/from-a")), []);
    // a → b → a: back on the credential origin, but the chain crossed once.
    await get(`${b.url}/to-a`, a.url);
    assert.deepEqual(secrets(last(a, "/back-on-a")), []);
  });

  it("without credentialOrigin, the URL's own origin is it", async () => {
    await get(`${b.url}/self`);
    assert.equal(secrets(last(b, "/self")).length, 6);
    await get(`${a.url}/to-b`);
    assert.deepEqual(secrets(last(b, "/from-a")), []);
  });
});
