import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { stringify } from "yaml";
import { type GatewayProcess, runExpectingExit, startGateway } from "../harness/gateway-process.js";
import { hlsFixtures } from "../harness/hls-fixtures.js";
import { login } from "../harness/http-client.js";
import { type Origin, type OriginHit, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { FAST_EGRESS, get, playlistUrls } from "./playback-setup.js";

// Issue 12, playback items: channel secrets stay with their origin (4), allowed_hosts
// host:port (5), viewer leases on every route (7), u/ answers sandboxed (8), a playlist
// with a byte-order mark (11). Black-box against the built lite binary.

const PLAYLIST = "application/vnd.apple.mpegurl";
const SECRET_HEADERS = {
  Authorization: "Bearer channel-secret-1",
  Cookie: "sid=channel-secret-2",
  "X-Api-Key": "channel-secret-3",
  "X-Session-Token": "channel-secret-4",
  "X-Plain": "visible",
};
const SENSITIVE = ["authorization", "cookie", "x-api-key", "x-session-token"];

/** A port nothing listens on: bound once by the OS, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const hitsFor = (origin: Origin, path: string): OriginHit[] =>
  origin.hits.filter((h) => h.path === path);

describe("HLS hardening: secrets per origin, host:port exemptions, leases, sandbox (lite)", () => {
  /** The channels' source origin. */
  let a: Origin;
  /** Another allow-listed origin a playlist names (another port). */
  let b: Origin;
  /** Open, but on a port the allowlist does not name. */
  let c: Origin;
  let closed: number;
  let gw: GatewayProcess;
  let admin: string;
  let admin2: string;

  before(async () => {
    const root = await hlsFixtures();
    b = await startOrigin({
      root,
      routes: (req, res) => {
        if (req.url !== "/back") return false;
        // The second hop of A → B → A: back on the source's origin, after leaving it.
        res.writeHead(302, { location: `${a.url}/vod/v0_0.ts?via=b` }).end();
        return true;
      },
    });
    c = await startOrigin({ root });
    closed = await closedPort();
    a = await startOrigin({
      root,
      routes: (req, res) => {
        const send = (type: string, body: string) => {
          res.writeHead(200, { "content-type": type });
          res.end(body);
          return true;
        };
        switch (req.url) {
          case "/cross.m3u8":
            return send(
              PLAYLIST,
              `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-ENDLIST\n#EXTINF:1,\n${b.url}/vod/v0_0.ts\n#EXTINF:1,\n/hop/vod/v0_1.ts\n#EXTINF:1,\n/vod/v0_2.ts\n#EXTINF:1,\n/bounce.ts\n`,
            );
          case "/ports.m3u8":
            return send(
              PLAYLIST,
              `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-ENDLIST\n#EXTINF:1,\nhttp://127.0.0.1:${c.port}/vod/v0_0.ts\n#EXTINF:1,\nhttp://127.0.0.1:${closed}/vod/v0_0.ts\n#EXTINF:1,\n/vod/v0_0.ts\n`,
            );
          case "/bom.m3u8":
            return send(
              PLAYLIST,
              "\ufeff#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-ENDLIST\n#EXTINF:1,\n/vod/v0_0.ts\n#EXTINF:1,\n/page.html\n",
            );
          case "/page.html":
            return send("text/html", "<script>document.title='ran on the gateway'</script>");
        }
        if (req.url?.startsWith("/ll.m3u8")) {
          // A live LL-HLS playlist whose last segment is 102; answers at once.
          let text = "#EXTM3U\n#EXT-X-VERSION:9\n#EXT-X-TARGETDURATION:2\n";
          text += "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.5\n";
          text += "#EXT-X-PART-INF:PART-TARGET=0.5\n#EXT-X-MEDIA-SEQUENCE:100\n";
          for (let i = 0; i < 3; i++) text += `#EXTINF:2.0,\n/vod/v0_${i}.ts\n`;
          return send(PLAYLIST, text);
        }
        if (req.url === "/bounce.ts") {
          res.writeHead(302, { location: `${b.url}/back` }).end();
          return true;
        }
        if (req.url === "/hop/vod/v0_1.ts") {
          // A cross-origin redirect: the channel's secrets must not follow it.
          res.writeHead(302, { location: `${b.url}/vod/v0_1.ts` }).end();
          return true;
        }
        return false;
      },
    });
    const channel = (id: string, path: string, extra: Record<string, unknown> = {}) => ({
      id,
      title: id,
      ingress: "hls",
      source_url: `${a.url}${path}`,
      headers: SECRET_HEADERS,
      user_agent: "hardening-agent/1",
      ...extra,
    });
    gw = await startGateway("lite", {
      auth: authSection([], { login_rate_per_min: 1000 }),
      // host:port entries: a and b on their own ports only; c's port is not exempt.
      security: { allowed_hosts: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`] },
      egress: FAST_EGRESS,
      channels: [
        channel("cross", "/cross.m3u8"),
        channel("ports", "/ports.m3u8"),
        channel("bom", "/bom.m3u8"),
        channel("limited", "/vod/v0.m3u8", { max_viewers: 1 }),
        channel("ll", "/ll.m3u8"),
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
    admin2 = await login(gw.url, "admin", ADMIN_PASSWORD);
    assert.notEqual(admin, admin2);
  });
  after(async () => {
    await gw?.stop();
    await Promise.all([a?.close(), b?.close(), c?.close()]);
  });

  const index = (id: string, query = "") =>
    `${gw.url}/v1/play/${id}/index.m3u8?token=${admin}${query}`;

  it("sends sensitive channel headers only to the source's origin (item 4)", async () => {
    const r = await get(index("cross"));
    assert.equal(r.status, 200, r.text);
    const urls = playlistUrls(r.text);
    assert.equal(urls.length, 4);
    for (const u of urls) assert.equal((await get(u)).status, 200, u);

    const [source] = hitsFor(a, "/cross.m3u8");
    const [sameOrigin] = hitsFor(a, "/vod/v0_2.ts");
    const [hop] = hitsFor(a, "/hop/vod/v0_1.ts");
    for (const hit of [source, sameOrigin, hop]) {
      assert.ok(hit);
      assert.equal(hit.headers.authorization, SECRET_HEADERS.Authorization);
      assert.equal(hit.headers["x-api-key"], SECRET_HEADERS["X-Api-Key"]);
      assert.equal(hit.headers["user-agent"], "hardening-agent/1");
    }
    // Another port is another origin: named by the playlist, or reached by a redirect.
    const named = hitsFor(b, "/vod/v0_0.ts");
    const redirected = hitsFor(b, "/vod/v0_1.ts");
    assert.equal(named.length, 1);
    assert.equal(redirected.length, 1);
    // A → B → A: once the chain left the source's origin, the secrets never come back.
    const back = a.hits.filter((h) => h.url === "/vod/v0_0.ts?via=b");
    assert.equal(back.length, 1);
    for (const hit of [...named, ...redirected, ...back, ...hitsFor(b, "/back")]) {
      for (const h of SENSITIVE) assert.equal(hit.headers[h], undefined, `${hit.path}: ${h}`);
      assert.equal(hit.headers["x-plain"], "visible");
      assert.equal(hit.headers["user-agent"], "hardening-agent/1");
    }
  });

  it("exempts only the listed port of a host:port entry, and a refusal does not tell open from closed (item 5)", async () => {
    const r = await get(index("ports"));
    assert.equal(r.status, 200, r.text);
    const [open, shut, listed] = playlistUrls(r.text) as [string, string, string];
    assert.equal((await get(listed)).status, 200);
    const dialled = c.connections();
    const answers = [];
    for (const u of [open, shut, open, shut]) answers.push({ res: await get(u) });
    for (const { res } of answers) {
      assert.equal(res.status, 403);
      assert.deepEqual(res.json, {
        error: { code: "forbidden", message: "upstream target not allowed" },
      });
      assert.equal(
        res.headers.get("content-length"),
        answers[0]!.res.headers.get("content-length"),
      );
    }
    // Refused before any connection (counted at TCP accept, not by timing the answers):
    // the decision never reaches the network, so it cannot tell an open port from a closed one.
    assert.equal(c.connections(), dialled, "the unlisted open port was never connected to");
    assert.equal(c.hits.length, 0, "the unlisted port was never dialled");
  });

  it("refuses a malformed allowed_hosts port at startup", async () => {
    const config = {
      server: { listen: "127.0.0.1:0" },
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1:0", "media.example:http"] },
    };
    const r = await runExpectingExit("lite", stringify(config));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /security\.allowed_hosts\[0\]: must be "host", "host:port"/);
    assert.match(r.stderr, /security\.allowed_hosts\[1\]/);
  });

  it("strips a UTF-8 byte-order mark instead of rewriting #EXTM3U as a URI (item 11)", async () => {
    const r = await get(index("bom"));
    assert.equal(r.status, 200, r.text);
    assert.ok(r.text.startsWith("#EXTM3U\n"), r.text);
    assert.equal(playlistUrls(r.text).length, 2);
  });

  it("answers every u/ request with Content-Security-Policy: sandbox (item 8)", async () => {
    const r = await get(index("cross"));
    const media = await get(playlistUrls(r.text)[2]!);
    assert.equal(media.status, 200);
    assert.match(media.headers.get("content-security-policy") ?? "", /^sandbox\b/);
    const forged = await get(`${playlistUrls(r.text)[2]!.replace(/sig=[^&]+/, "sig=AAAA")}`);
    assert.equal(forged.status, 403);
    assert.match(forged.headers.get("content-security-policy") ?? "", /^sandbox\b/);
    // A hostile text/html reached through u/ keeps its type but cannot run as our origin.
    const page = await get(playlistUrls((await get(index("bom"))).text)[1]!);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html");
    assert.match(page.headers.get("content-security-policy") ?? "", /^sandbox\b/);
  });

  it("requires a live lease on every route of a limited channel, bound to its credential (item 7)", async () => {
    const first = await get(index("limited"));
    assert.equal(first.status, 307);
    const location = first.headers.get("location")!;
    const lease = new URL(location).searchParams.get("viewer")!;
    const playing = await get(location);
    assert.equal(playing.status, 200);
    const media = playlistUrls(playing.text);
    assert.ok(media.length > 0);
    for (const u of media) assert.equal(new URL(u).searchParams.get("viewer"), lease);
    assert.equal((await get(media[0]!)).status, 200);

    // Dropping viewer= from a media or live/ URL is refused.
    const stripped = media[0]!.replace(/&viewer=[^&]+/, "");
    for (const u of [stripped, `${gw.url}/v1/play/limited/live/index.m3u8?token=${admin}`]) {
      const r = await get(u);
      assert.equal(r.status, 403, u);
      assert.equal(r.json.error.code, "forbidden");
      assert.match(r.json.error.message, /viewer lease is required/);
    }
    // Another credential cannot ride on the lease.
    for (const u of [
      `${gw.url}/v1/play/limited/index.m3u8?token=${admin2}&viewer=${lease}`,
      media[0]!.replace(`token=${admin}`, `token=${admin2}`),
    ]) {
      const r = await get(u);
      assert.equal(r.status, 403, u);
      assert.equal(r.json.error.message, "invalid viewer lease");
    }
    // The seat is taken: a second viewer is over the limit.
    const second = await get(`${gw.url}/v1/play/limited/index.m3u8?token=${admin2}`);
    assert.equal(second.status, 429);
    assert.equal(second.json.error.code, "too_many_requests");
  });

  it("validates viewer on every route before it can reach a playlist (item 7)", async () => {
    const injected = encodeURIComponent("x\n#EXT-X-ENDLIST\nhttp://127.0.0.2/evil.ts");
    for (const u of [
      `${gw.url}/v1/play/cross/index.m3u8?token=${admin}&viewer=${injected}`,
      `${gw.url}/v1/play/cross/live/index.m3u8?token=${admin}&viewer=${injected}`,
      `${gw.url}/v1/play/limited/live/v0.m3u8?token=${admin}&viewer=${injected}`,
    ]) {
      const r = await get(u);
      assert.equal(r.status, 400, u);
      assert.deepEqual(r.json, {
        error: { code: "invalid_request", message: "viewer is not a viewer lease" },
      });
    }
    // A well-formed lease on a channel without a limit is ignored, never copied.
    const wellFormed = `${"A".repeat(16)}.${"B".repeat(43)}`;
    const r = await get(index("cross", `&viewer=${wellFormed}`));
    assert.equal(r.status, 200);
    assert.doesNotMatch(r.text, /viewer=/);
  });

  it("binds _HLS_msn to the live edge: old ones from the cache, far ones refused (item 8)", async () => {
    const llHits = () => a.hits.filter((h) => h.path === "/ll.m3u8");
    const directed = () => llHits().filter((h) => h.url.includes("_HLS_msn"));
    assert.equal((await get(index("ll"))).status, 200);
    const before = llHits().length;
    // Twenty distinct sequence numbers the playlist already holds: no upstream request each.
    const old = await Promise.all(
      Array.from({ length: 20 }, (_, i) => get(index("ll", `&_HLS_msn=${83 + i}`))),
    );
    for (const r of old) assert.equal(r.status, 200);
    assert.equal(directed().length, 0);
    assert.ok(llHits().length - before <= 2, `${llHits().length - before} upstream fetches`);
    // Far past the edge (102 + 2): a Bad Request at once, never forwarded.
    for (const msn of [105, 999999999]) {
      const r = await get(index("ll", `&_HLS_msn=${msn}`));
      assert.equal(r.status, 400);
      assert.equal(r.json.error.code, "invalid_request");
      assert.match(r.json.error.message, /more than 2 past the last segment \(102\)/);
    }
    assert.equal(directed().length, 0);
    // The next segment is a real blocking request, forwarded with its directives.
    assert.equal((await get(index("ll", "&_HLS_msn=103&_HLS_part=0"))).status, 200);
    assert.deepEqual(
      directed().map((h) => h.url),
      ["/ll.m3u8?_HLS_msn=103&_HLS_part=0"],
    );
  });
});
