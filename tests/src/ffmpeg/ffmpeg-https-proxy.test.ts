import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, normalize, sep } from "node:path";
import { after, before, describe, it } from "node:test";
import { type DashSource, startDashSource } from "../harness/ffmpeg-dash-origin.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { playWithFfmpeg } from "../harness/media-probe.js";
import { authSection } from "../harness/users.js";

// Issue 12 item 6, https: ffmpeg reaches an https source through the egress proxy, which
// terminates ffmpeg's CONNECT (ffmpeg 5.1 does not verify certificates) and makes the request
// itself with verified TLS, adding the channel's headers that ffmpeg's argv no longer carries.
// The origin's certificate is trusted by the gateway through NODE_EXTRA_CA_CERTS. Loopback only.
const TOKEN = "https-chan-token-77d1";

describe("ffmpeg compatibility engine: an https source with channel headers", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-https-"));
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  let source: DashSource;
  let origin: Server;
  let gw: GatewayProcess;

  before(async () => {
    const key = join(root, "origin.key");
    const cert = join(root, "origin.crt");
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
        ...["-keyout", key, "-out", cert, "-subj", "/CN=127.0.0.1"],
        ...["-addext", "subjectAltName=IP:127.0.0.1"],
      ],
      { stdio: "ignore" },
    );
    const files = join(root, "origin");
    source = await startDashSource(files);
    origin = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const path = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/");
      seen.push({ path, headers: req.headers });
      if (seen.length > 500) seen.shift();
      const file = normalize(join(files, path));
      try {
        if (!file.startsWith(files + sep) || !statSync(file).isFile()) throw new Error("no");
        res.writeHead(200, { "content-length": statSync(file).size, "cache-control": "no-cache" });
        createReadStream(file).pipe(res);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    const { port } = origin.address() as AddressInfo;
    gw = await startGateway(
      "full",
      {
        auth: authSection(),
        security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
        channels: [
          {
            id: "tls",
            title: "tls",
            ingress: "dash",
            engine: "ffmpeg",
            source_url: `https://127.0.0.1:${port}/live/manifest.mpd`,
            headers: { Authorization: `Bearer ${TOKEN}` },
          },
        ],
      },
      { env: { NODE_EXTRA_CA_CERTS: cert } },
    );
  });
  after(async () => {
    await gw?.stop();
    await source?.stop();
    origin?.closeAllConnections();
    origin?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("plays, and every segment request reached the origin over TLS with the channel's header", async () => {
    const played = await playWithFfmpeg(`${gw.url}/v1/play/tls/index.m3u8`, 3);
    assert.equal(played.code, 0, played.stderr);
    const segments = seen.filter((q) => q.path.endsWith(".m4s"));
    assert.ok(segments.length >= 3, JSON.stringify(seen.map((q) => q.path)));
    for (const q of segments) assert.equal(q.headers.authorization, `Bearer ${TOKEN}`, q.path);
  });
});
