import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Build, type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { SPEC_ROUTES } from "../harness/spec-routes.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { HostileGroup, rawRequest } from "./hostile-checks.js";

// Issue 14 item 2: path traversal in every path parameter of every route of the spec's table,
// in plain, encoded, double-encoded, backslash, overlong-UTF-8 and NUL forms, sent byte for
// byte. Nothing may answer 500, leak a file (passwd, package.json, the signing key, the
// database) or touch a resource the path did not name.
const TRAVERSALS: readonly string[] = [
  "..",
  ".",
  "%2e%2e",
  "..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
  "%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "%252e%252e%252f%252e%252e%252f%252e%252e%252fetc%252fpasswd",
  "..%5c..%5c..%5c..%5cetc%5cpasswd",
  "..\\..\\..\\..\\etc\\passwd",
  "....%2f%2f....%2f%2f....%2f%2fetc%2fpasswd",
  "%c0%ae%c0%ae%c0%af%c0%ae%c0%ae%c0%afetc%c0%afpasswd",
  "..%00",
  "news%00..",
  "..;%2f..;%2fetc%2fpasswd",
  "..%2f..%2fauth%2fed25519.pem",
  "..%2f..%2fdata%2fgateway.db",
  "%2fetc%2fpasswd",
  "%e2%80%ae..%2f",
  "a".repeat(4096),
];

/** Bytes that say a file escaped. */
const ESCAPED = [/root:[x*]?:0:0/, /"name":\s*"@svc\//, /PRIVATE KEY/, /SQLite format 3/];

const CHANNELS = [
  { id: "news", title: "News", ingress: "hls", source_url: "http://127.0.0.1:9/n.m3u8" },
  { id: "sport", title: "Sport", ingress: "hls", source_url: "http://127.0.0.1:9/s.m3u8" },
];

for (const build of ["lite", "full"] as Build[]) {
  describe(`hostile input, ${build}: path traversal in every path parameter`, () => {
    let gw: GatewayProcess;
    let group: HostileGroup;
    let admin: string;
    let key = "";

    before(async () => {
      gw = await startGateway(build, {
        auth: authSection([], { login_rate_per_min: 100_000 }),
        channels: CHANNELS,
      });
      group = new HostileGroup(gw);
      admin = await login(gw.url, "admin", ADMIN_PASSWORD);
      if (build === "full") {
        const r = await requestJson(`${gw.url}/v1/admin/access-tokens`, {
          token: admin,
          body: { name: "traversal" },
        });
        key = r.body.token;
      }
    });
    after(async () => {
      await gw.stop();
    });

    const routes = SPEC_ROUTES.filter(
      (r) => (build === "full" || r.lite) && (r.path.includes("{") || r.path.endsWith("*")),
    );

    it("answers every traversal without a 500 or a file, and changes nothing", async () => {
      let sent = 0;
      for (const route of routes) {
        const params = [...route.path.matchAll(/\{(\w+)\}|\*/g)].map((m) => m[1] ?? "*");
        for (const target of params) {
          for (const evil of TRAVERSALS) {
            const path = route.path.replace(/\{(\w+)\}|\*$/g, (_, name: string | undefined) => {
              const p = name ?? "*";
              if (p === target) return p === "*" ? `assets/${evil}` : evil;
              if (p === "token") return key || "v1x";
              if (p === "file") return "index.m3u8";
              if (p === "upstream") return "aHR0cDovLzEyNy4wLjAuMTo5L3g";
              return "news";
            });
            const a = group.add({
              label: `${route.method} ${path.slice(0, 120)}`,
              ...(await rawRequest(gw.url, path, {
                method: route.method,
                headers: {
                  authorization: `Bearer ${admin}`,
                  "content-type": "application/json",
                  "if-match": '"1"',
                },
                body: route.method === "GET" || route.method === "DELETE" ? undefined : "{}",
              })),
            });
            sent += 1;
            assert.ok(a.status < 500 || [502, 503].includes(a.status), `${a.label}: ${a.status}`);
            for (const re of ESCAPED) assert.doesNotMatch(a.text, re, a.label);
          }
        }
      }
      assert.ok(sent >= routes.length * TRAVERSALS.length, `only ${sent} requests`);
      await group.check();
      if (build === "full") {
        const list = await requestJson(`${gw.url}/v1/admin/channels`, { token: admin });
        assert.deepEqual(list.body.channels.map((c: { id: string }) => c.id).sort(), [
          "news",
          "sport",
        ]);
        const keys = await requestJson(`${gw.url}/v1/admin/access-tokens`, { token: admin });
        assert.equal(keys.body.access_tokens.length, 1, keys.text);
        assert.equal(keys.body.access_tokens[0].revoked_at, null, keys.text);
      }
    });

    if (build === "full") {
      it("serves no file outside the console's assets, in any spelling", async () => {
        for (const evil of [
          "/admin/assets/../../../../package.json",
          "/admin/assets/..%2f..%2f..%2f..%2fpackage.json",
          "/admin/assets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/package.json",
          "/admin/assets/%252e%252e%252f%252e%252e%252fpackage.json",
          "/admin/assets/..\\..\\..\\..\\package.json",
          "/admin/..%2f..%2f..%2fpackage.json",
          "/admin/assets/..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
          "/admin/assets/%2fetc%2fpasswd",
          "/admin//etc/passwd",
          "/admin/assets/index.html%00.js",
        ]) {
          const a = group.add({ label: evil, ...(await rawRequest(gw.url, evil)) });
          assert.ok(a.status < 500, `${evil}: ${a.status}`);
          for (const re of ESCAPED) assert.doesNotMatch(a.text, re, evil);
        }
        await group.check();
      });
    }
  });
}
