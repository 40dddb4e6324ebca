import assert from "node:assert/strict";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway, tempDir } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ed25519Pair, hs256WithPublicKey, signSession, unsignedToken } from "../harness/keys.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

const now = () => Math.floor(Date.now() / 1000);
const channels = [
  { id: "one", title: "One", ingress: "hls", source_url: "http://127.0.0.1:9/one.m3u8" },
];

describe("session JWT verification (lite, pinned key)", () => {
  const pair = ed25519Pair();
  let gw: GatewayProcess;
  const playlist = (token: string) =>
    requestJson(`${gw.url}/v1/playlist.m3u?token=${encodeURIComponent(token)}`);

  before(async () => {
    gw = await startGateway("lite", {
      auth: authSection([], {
        token_private_key: pair.privatePem,
        token_public_key: pair.publicPem,
      }),
      channels,
    });
  });
  after(async () => {
    await gw.stop();
  });

  it("accepts a valid token and one expired within the 30 s skew", async () => {
    const t = now();
    const fresh = await signSession(
      pair.privateKey,
      { sub: "admin", role: "admin" },
      { iat: t, nbf: t, exp: t + 60 },
    );
    assert.equal((await playlist(fresh)).status, 200);
    const skewed = await signSession(
      pair.privateKey,
      { sub: "admin", role: "admin" },
      { iat: t - 100, nbf: t - 100, exp: t - 10 },
    );
    assert.equal((await playlist(skewed)).status, 200);
  });

  it("refuses a token expired beyond the skew", async () => {
    const t = now();
    const tok = await signSession(
      pair.privateKey,
      { sub: "admin", role: "admin" },
      { iat: t - 200, nbf: t - 200, exp: t - 60 },
    );
    const r = await playlist(tok);
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, "unauthorized");
  });

  it("refuses a token not yet valid beyond the skew", async () => {
    const t = now();
    const tok = await signSession(
      pair.privateKey,
      { sub: "admin", role: "admin" },
      { iat: t, nbf: t + 120, exp: t + 600 },
    );
    assert.equal((await playlist(tok)).status, 401);
  });

  it("refuses alg none and HS256 keyed with the public key", async () => {
    const t = now();
    const payload = {
      iss: "svc",
      aud: "svc",
      sub: "admin",
      role: "admin",
      kind: "session",
      channels: [],
      rev: 0,
      iat: t,
      nbf: t,
      exp: t + 60,
      jti: "x",
    };
    assert.equal((await playlist(unsignedToken(payload))).status, 401);
    assert.equal((await playlist(hs256WithPublicKey(pair.publicPem, payload))).status, 401);
  });

  it("refuses a foreign issuer or audience, an unknown user, and a garbage token", async () => {
    const t = now();
    const times = { iat: t, nbf: t, exp: t + 60 };
    assert.equal(
      (
        await playlist(
          await signSession(pair.privateKey, { sub: "admin", role: "admin" }, times, {
            iss: "other",
          }),
        )
      ).status,
      401,
    );
    assert.equal(
      (
        await playlist(
          await signSession(pair.privateKey, { sub: "admin", role: "admin" }, times, {
            aud: "other",
          }),
        )
      ).status,
      401,
    );
    assert.equal(
      (await playlist(await signSession(pair.privateKey, { sub: "ghost", role: "admin" }, times)))
        .status,
      401,
    );
    assert.equal((await playlist("not.a.jwt")).status, 401);
  });

  it("refuses a token signed by another key", async () => {
    const other = ed25519Pair();
    const t = now();
    const tok = await signSession(
      other.privateKey,
      { sub: "admin", role: "admin" },
      { iat: t, nbf: t, exp: t + 60 },
    );
    assert.equal((await playlist(tok)).status, 401);
  });
});

describe("generated signing key", () => {
  it("is written with mode 0600 beside its public half and reused on restart", async () => {
    const root = tempDir();
    const config = { auth: authSection(), channels };
    const first = await startGateway("lite", config, { dir: root });
    const dir = join(first.dataDir, "auth");
    const mode = statSync(join(dir, "ed25519.pem")).mode & 0o777;
    assert.equal(mode, 0o600);
    assert.ok(statSync(join(dir, "ed25519.pub.pem")).isFile());
    const token = await login(first.url, "admin", ADMIN_PASSWORD);
    assert.equal(await first.stop(), 0);
    const second = await startGateway("lite", config, { dir: root });
    const r = await requestJson(`${second.url}/v1/playlist.m3u?token=${token}`);
    assert.equal(r.status, 200, "a session from before the restart still verifies");
    await second.stop();
    rmSync(root, { recursive: true, force: true });
  });
});
