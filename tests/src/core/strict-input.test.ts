import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertError } from "../full/full-fixture.js";
import { type Build, type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ed25519Pair, signSession } from "../harness/keys.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

const now = () => Math.floor(Date.now() / 1000);
const channels = [
  { id: "one", title: "One", ingress: "hls", source_url: "http://127.0.0.1:9/one.m3u8" },
];

/** Raw bytes as a JSON body (the JSON helper would re-encode them). */
async function postBytes(url: string, body: Uint8Array | string, token?: string, method = "POST") {
  const res = await fetch(url, {
    method,
    body: typeof body === "string" ? body : Buffer.from(body),
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

for (const build of ["lite", "full"] as Build[]) {
  describe(`${build}: strict JSON bodies and time claims (issue 12 item 9)`, () => {
    const pair = ed25519Pair();
    let gw: GatewayProcess;
    before(async () => {
      gw = await startGateway(build, {
        auth: authSection([], {
          token_private_key: pair.privatePem,
          token_public_key: pair.publicPem,
          login_rate_per_min: 1000,
        }),
        channels,
      });
    });
    after(async () => {
      await gw.stop();
    });
    const loginUrl = () => `${gw.url}/v1/auth/login`;

    it("login: a duplicated key is 400 invalid_request, not last-wins", async () => {
      const r = await postBytes(
        loginUrl(),
        `{"username":"admin","password":"wrong-password","password":"${ADMIN_PASSWORD}"}`,
      );
      assertError(r, 400, "invalid_request");
      assert.match(r.body.error.message, /"password" twice/);
      // The same pair without the duplicate logs in: the refusal is about the body.
      const ok = await postBytes(loginUrl(), `{"username":"admin","password":"${ADMIN_PASSWORD}"}`);
      assert.equal(ok.status, 200, ok.text);
    });

    it("login: bytes that are not UTF-8 are 400 invalid_request, not U+FFFD", async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"username":"adm'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(`in","password":"${ADMIN_PASSWORD}"}`),
      ]);
      const r = await postBytes(loginUrl(), bytes);
      assertError(r, 400, "invalid_request");
      assert.match(r.body.error.message, /UTF-8/);
    });

    it("a JWT whose iat is in the future beyond the 30 s skew is 401; within it, accepted", async () => {
      const t = now();
      const playlist = (token: string) =>
        requestJson(`${gw.url}/v1/playlist.m3u?token=${encodeURIComponent(token)}`);
      const future = await signSession(
        pair.privateKey,
        { sub: "admin", role: "admin" },
        { iat: t + 120, nbf: t, exp: t + 600 },
      );
      assertError(await playlist(future), 401, "unauthorized");
      const skewed = await signSession(
        pair.privateKey,
        { sub: "admin", role: "admin" },
        { iat: t + 10, nbf: t, exp: t + 600 },
      );
      assert.equal((await playlist(skewed)).status, 200);
      if (build === "full") {
        assertError(await requestJson(`${gw.url}/v1/me`, { token: future }), 401, "unauthorized");
        assert.equal((await requestJson(`${gw.url}/v1/me`, { token: skewed })).status, 200);
      }
    });
  });
}

describe("full: strict JSON on the admin routes (issue 12 item 9)", () => {
  let gw: GatewayProcess;
  let admin: string;
  before(async () => {
    gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 1000 }),
      channels,
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw.stop();
  });

  it("a channel write naming a key twice is refused and nothing is stored", async () => {
    const body =
      '{"id":"dup","title":"First","title":"Second","ingress":"hls","source_url":"http://127.0.0.1:9/a.m3u8"}';
    assertError(
      await postBytes(`${gw.url}/v1/admin/channels`, body, admin),
      400,
      "invalid_request",
    );
    const list = await requestJson(`${gw.url}/v1/admin/channels`, { token: admin });
    assert.ok(!list.body.channels.some((c: any) => c.id === "dup"));
  });

  it("an API token name that is not UTF-8, or a lone surrogate, is refused; nothing stored", async () => {
    const bad = Buffer.concat([
      Buffer.from('{"name":"ci'),
      Buffer.from([0xc3]),
      Buffer.from('","scopes":["read"]}'),
    ]);
    assertError(
      await postBytes(`${gw.url}/v1/admin/api-tokens`, bad, admin),
      400,
      "invalid_request",
    );
    assertError(
      await postBytes(
        `${gw.url}/v1/admin/api-tokens`,
        '{"name":"ci\\udc00","scopes":["read"]}',
        admin,
      ),
      400,
      "invalid_request",
    );
    const tokens = await requestJson(`${gw.url}/v1/admin/api-tokens`, { token: admin });
    assert.equal(tokens.body.tokens.length, 0, tokens.text);
  });

  it("a credential change naming new_password twice is refused; the password is unchanged", async () => {
    const r = await postBytes(
      `${gw.url}/v1/me/credentials`,
      `{"current_password":"${ADMIN_PASSWORD}","new_password":"first-password-1","new_password":"second-password-2"}`,
      admin,
      "PUT",
    );
    assertError(r, 400, "invalid_request");
    assert.equal(typeof (await login(gw.url, "admin", ADMIN_PASSWORD)), "string");
  });
});
