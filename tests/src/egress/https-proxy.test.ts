import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createReadStream, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join, normalize, sep } from "node:path";
import { after, before, describe, it } from "node:test";
import { type FullGateway, startFull } from "../full/full-fixture.js";
import { tempDir } from "../harness/gateway-process.js";
import { fixtureBytes, hlsFixtures } from "../harness/hls-fixtures.js";
import { requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { get, playlistUrls } from "../playback/playback-setup.js";
import { type LoopbackProxy, startHttpProxy } from "./loopback-proxies.js";

const SECRET = "tls-pr0xy-s3cret";
const CREDS = { user: "gw", pass: SECRET };

/** A self-signed certificate for 127.0.0.1 (an IP SAN: Node checks no CN for addresses). */
function selfSigned(dir: string, name: string): { key: Buffer; cert: Buffer; certFile: string } {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", `/CN=${name}`],
      ...["-addext", "subjectAltName=IP:127.0.0.1"],
    ],
    { stdio: "ignore" },
  );
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
}

/**
 * An `https` proxy profile: TLS to the proxy itself, then a CONNECT tunnel inside it (undici
 * tunnels http targets too through an https proxy; TLS to an https target inside the tunnel). The proxy's certificate is trusted the way
 * the gateway trusts any extra CA, `NODE_EXTRA_CA_CERTS` (docs/egress.md "Transports").
 * Loopback only: the proxy, a plain origin and a TLS origin on 127.0.0.1.
 */
describe("https proxy profiles: TLS to the proxy, then the tunnel", () => {
  let root: string;
  let origin: Origin;
  let tlsOrigin: Server;
  let tlsOriginUrl: string;
  let proxy: LoopbackProxy;
  let untrusted: LoopbackProxy;
  let full: FullGateway;

  const api = (path: string, init: Parameters<typeof requestJson>[1] = {}) =>
    requestJson(`${full.base}${path}`, { token: full.admin, ...init });
  const segment = () => fixtureBytes(root, "vod/v0_0.ts");
  /** Plays a channel's playlist and first segment through the gateway. */
  const play = async (id: string) => {
    const pl = await get(`${full.base}/v1/play/${id}/index.m3u8`);
    assert.equal(pl.status, 200, pl.text);
    const seg = await get(playlistUrls(pl.text)[0]!);
    assert.equal(seg.status, 200);
    assert.ok(seg.bytes.equals(segment()));
  };
  const addChannel = async (id: string, source: string, profile: string) => {
    const r = await api("/v1/admin/channels", {
      body: {
        id,
        title: id,
        ingress: "hls",
        source_url: source,
        egress: { mode: "profile", profile_id: profile },
      },
    });
    assert.equal(r.status, 201, r.text);
  };

  before(async () => {
    root = await hlsFixtures();
    origin = await startOrigin({ root });
    const dir = tempDir("svc-https-proxy-");
    const proxyCert = selfSigned(dir, "proxy");
    const originCert = selfSigned(dir, "origin");
    const strangerCert = selfSigned(dir, "stranger");
    // The gateway trusts the proxy's and the TLS origin's certificates, not the stranger's.
    const bundle = join(dir, "extra-ca.pem");
    writeFileSync(bundle, Buffer.concat([proxyCert.cert, originCert.cert]));
    proxy = await startHttpProxy(CREDS, { tls: proxyCert });
    untrusted = await startHttpProxy(undefined, { tls: strangerCert });
    tlsOrigin = createServer(originCert, (req, res) => {
      const file = normalize(join(root, decodeURIComponent((req.url ?? "/").split("?")[0]!)));
      try {
        if (!file.startsWith(root + sep) || !statSync(file).isFile()) throw new Error("none");
        res.writeHead(200, { "content-length": statSync(file).size });
        createReadStream(file).pipe(res);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => tlsOrigin.listen(0, "127.0.0.1", r));
    tlsOriginUrl = `https://127.0.0.1:${(tlsOrigin.address() as AddressInfo).port}`;
    full = await startFull(
      {
        security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
        egress: {
          proxies: [
            {
              id: "tls",
              name: "TLS proxy",
              url: `https://${CREDS.user}:${SECRET}@127.0.0.1:${proxy.port}`,
            },
            { id: "stranger", name: "untrusted", url: `https://127.0.0.1:${untrusted.port}` },
          ],
        },
      },
      { env: { NODE_EXTRA_CA_CERTS: bundle } },
    );
  });
  after(async () => {
    await full?.gw.stop();
    await origin?.close();
    await proxy?.close();
    await untrusted?.close();
    tlsOrigin?.closeAllConnections();
    tlsOrigin?.close();
  });

  it("the profile reads back as https with its scheme and host only", async () => {
    const doc = await api("/v1/admin/egress");
    const tls = doc.body.proxies.find((p: { id: string }) => p.id === "tls");
    assert.equal(tls.url, `https://127.0.0.1:${proxy.port}`);
    assert.equal(tls.credential_configured, true);
    assert.ok(!doc.text.includes(SECRET));
  });

  it("an http origin: playlist and segment travel through a CONNECT tunnel inside TLS to the proxy", async () => {
    await addChannel("via-tls", `${origin.url}/vod/v0.m3u8`, "tls");
    const carried = proxy.carried.length;
    const relayed = proxy.relayed;
    const hits = origin.count("/vod/");
    await play("via-tls");
    // undici tunnels every target of an https proxy, http ones too: CONNECT to the origin
    // (one tunnel may carry both requests).
    const tunnels = proxy.carried.slice(carried);
    assert.ok(tunnels.length >= 1);
    assert.ok(
      tunnels.every((t) => t === `127.0.0.1:${origin.port}`),
      tunnels.join(","),
    );
    assert.ok(proxy.relayed - relayed >= segment().length);
    assert.equal(origin.count("/vod/"), hits + 2);
    assert.equal(proxy.authFailures, 0);
  });

  it("an https origin: CONNECT inside TLS to the proxy, then TLS to the origin in the tunnel", async () => {
    await addChannel("tls-in-tls", `${tlsOriginUrl}/vod/v0.m3u8`, "tls");
    const carried = proxy.carried.length;
    const relayed = proxy.relayed;
    await play("tls-in-tls");
    const tunnels = proxy.carried.slice(carried);
    assert.ok(tunnels.length >= 1);
    assert.ok(
      tunnels.every((t) => t === new URL(tlsOriginUrl).host),
      tunnels.join(","),
    );
    // TLS records of the whole segment came back through the tunnel.
    assert.ok(proxy.relayed - relayed >= segment().length);
    const t = await api("/v1/admin/egress/test", {
      body: { url: `${tlsOriginUrl}/vod/v0_0.ts`, proxy_id: "tls" },
    });
    assert.equal(t.status, 200, t.text);
    assert.equal(t.body.outcome, "success", t.text);
    assert.equal(t.body.via_proxy, true);
    assert.equal(t.body.sample_bytes, segment().length);
  });

  it("a proxy whose certificate is not trusted: nothing is sent to it in the clear", async () => {
    await addChannel("via-stranger", `${origin.url}/vod/v0.m3u8`, "stranger");
    const hits = origin.count("/vod/");
    const pl = await get(`${full.base}/v1/play/via-stranger/index.m3u8`);
    assert.equal(pl.status, 502, pl.text);
    assert.equal(pl.json?.error?.code, "upstream_error");
    assert.equal(untrusted.carried.length, 0);
    assert.equal(origin.count("/vod/"), hits);
    const t = await api("/v1/admin/egress/test", {
      body: { url: `${origin.url}/vod/v0_0.ts`, proxy_id: "stranger" },
    });
    assert.equal(t.status, 200, t.text);
    assert.equal(t.body.ok, false);
    assert.equal(t.body.outcome, "proxy", t.text);
    assert.match(
      t.body.error,
      /^TLS handshake with the proxy failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    );
    assert.equal(untrusted.carried.length, 0);
  });
});
