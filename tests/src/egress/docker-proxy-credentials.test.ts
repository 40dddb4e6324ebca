import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FullGateway, startFull } from "../full/full-fixture.js";
import { requestJson } from "../harness/http-client.js";

// Issue 30 item 3: in a container a profile on 127.0.0.1 is dialled at
// `egress.docker_proxy_host`; changing that setting must not carry the profile's stored
// credentials to the new host. The "new host" here is 127.0.0.2 on the same port, where a
// recording listener stands in for whatever the setting would point at. Outside a container
// the profile is dialled as written (127.0.0.1, also recorded); the stored credentials must be
// gone either way, since the document is shared by every instance of a cluster.

const SECRET = "docker-canary";
const BASIC = `Basic ${Buffer.from(`gw:${SECRET}`).toString("base64")}`;
const IN_CONTAINER = existsSync("/.dockerenv") || existsSync("/run/.containerenv");

interface Recorded {
  readonly listener: "127.0.0.1" | "127.0.0.2";
  readonly target: string;
  readonly auth: string | undefined;
}

/** A forward-proxy stand-in: records each request's target and credentials, answers 200. */
async function listenRecording(
  host: "127.0.0.1" | "127.0.0.2",
  port: number,
  seen: Recorded[],
): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push({ listener: host, target: req.url ?? "", auth: req.headers["proxy-authorization"] });
    res.writeHead(200, { "content-length": 2 }).end("ok");
  });
  await new Promise<void>((r) => server.listen(port, host, r));
  return server;
}

describe("egress.docker_proxy_host: stored proxy credentials stay with their proxy host", () => {
  const seen: Recorded[] = [];
  let servers: Server[] = [];
  let port = 0;
  let full: FullGateway;

  before(async () => {
    const first = await listenRecording("127.0.0.1", 0, seen);
    port = (first.address() as AddressInfo).port;
    servers = [first, await listenRecording("127.0.0.2", port, seen)];
    full = await startFull({
      security: { allowed_hosts: ["127.0.0.1"] },
      egress: { proxies: [{ id: "vpn", url: `http://gw:${SECRET}@127.0.0.1:${port}` }] },
    });
  });
  after(async () => {
    await full?.gw.stop();
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  /** One connection test through `vpn`; returns what the listeners recorded for it. */
  const throughVpn = async (): Promise<Recorded> => {
    const count = seen.length;
    const r = await requestJson(`${full.base}/v1/admin/egress/test`, {
      token: full.admin,
      body: { url: "http://127.0.0.1:9/through-vpn", proxy_id: "vpn" },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.outcome, "success", r.text);
    assert.equal(seen.length, count + 1, JSON.stringify(seen));
    return seen.at(-1)!;
  };
  const putEgress = async (change: (doc: any) => any) => {
    const read = await requestJson(`${full.base}/v1/admin/egress`, { token: full.admin });
    assert.equal(read.status, 200, read.text);
    const r = await requestJson(`${full.base}/v1/admin/egress`, {
      method: "PUT",
      token: full.admin,
      headers: { "if-match": read.headers.get("etag")! },
      body: change(read.body),
    });
    assert.equal(r.status, 200, r.text);
    assert.ok(!r.text.includes(SECRET), r.text);
    return r.body;
  };

  it("before any change the stored credentials reach the profile's own host", async () => {
    const got = await throughVpn();
    assert.deepEqual(got, {
      listener: "127.0.0.1",
      target: "http://127.0.0.1:9/through-vpn",
      auth: BASIC,
    });
  });

  it("a docker_proxy_host change drops them; the new host never sees them", async () => {
    const doc = await putEgress((d) => ({ ...d, docker_proxy_host: "127.0.0.2" }));
    assert.equal(doc.docker_proxy_host, "127.0.0.2");
    assert.equal(doc.proxies[0].credential_configured, false, JSON.stringify(doc));
    const got = await throughVpn();
    assert.equal(got.listener, IN_CONTAINER ? "127.0.0.2" : "127.0.0.1");
    assert.equal(got.auth, undefined, JSON.stringify(got));
  });

  it("credentials entered again are kept, and kept while docker_proxy_host stays", async () => {
    const entered = await putEgress((d) => ({
      ...d,
      proxies: [{ ...d.proxies[0], url: `http://gw:${SECRET}@127.0.0.1:${port}` }],
    }));
    assert.equal(entered.proxies[0].credential_configured, true);
    // Written back as read (no credentials in the URL), the setting unchanged: still there.
    const kept = await putEgress((d) => d);
    assert.equal(kept.proxies[0].credential_configured, true);
    assert.equal((await throughVpn()).auth, BASIC);
  });
});
