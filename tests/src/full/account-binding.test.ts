import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { hashFor } from "../harness/users.js";
import { assertError, createApiToken } from "./full-fixture.js";

const PASSWORD = "first-password-1";

describe("full: sessions are bound to the stable account key (issue 12 item 8)", () => {
  let gw: GatewayProcess;
  const url = (p: string) => `${gw.url}${p}`;
  before(async () => {
    gw = await startGateway("full", {
      auth: {
        users: ["alice", "bob"].map((username) => ({
          username,
          password_hash: hashFor(PASSWORD),
          role: "admin",
        })),
        login_rate_per_min: 1000,
      },
      channels: [
        { id: "one", title: "One", ingress: "hls", source_url: "http://127.0.0.1:9/a.m3u8" },
      ],
    });
  });
  after(async () => {
    await gw.stop();
  });

  const change = (token: string, body: Record<string, unknown>) =>
    requestJson(url("/v1/me/credentials"), {
      method: "PUT",
      token,
      body: { current_password: PASSWORD, ...body },
    });

  it("a dead token of one account never revives as another account that takes its username", async () => {
    // alice at revision 1 (after a password change), then renamed away: revision 2.
    const alice0 = await login(gw.url, "alice", PASSWORD);
    const pw = await change(alice0, { new_password: "second-password-2" });
    assert.equal(pw.status, 200, pw.text);
    const aliceRev1 = pw.body.token as string;
    const renamed = await requestJson(url("/v1/me/credentials"), {
      method: "PUT",
      token: aliceRev1,
      body: { current_password: "second-password-2", username: "carol" },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assertError(await requestJson(url("/v1/me"), { token: aliceRev1 }), 401, "unauthorized");
    // bob takes the name "alice": his revision is now 1, like the dead token's.
    const bob0 = await login(gw.url, "bob", PASSWORD);
    const took = await change(bob0, { username: "alice" });
    assert.equal(took.status, 200, took.text);
    // The dead token names username "alice" at revision 1: it must stay dead,
    // on the admin API and on playback alike.
    assertError(await requestJson(url("/v1/me"), { token: aliceRev1 }), 401, "unauthorized");
    assertError(
      await requestJson(url(`/v1/playlist.m3u?token=${encodeURIComponent(aliceRev1)}`)),
      401,
      "unauthorized",
    );
    // The live tokens of both accounts work and say who they are.
    const carol = await requestJson(url("/v1/me"), { token: renamed.body.token });
    assert.equal(carol.body.username, "carol");
    const bobNow = await requestJson(url("/v1/me"), { token: took.body.token });
    assert.equal(bobNow.body.username, "alice");
  });
});

describe("full: non-admin readers see source URLs without credentials (issue 12 item 8)", () => {
  let gw: GatewayProcess;
  let admin: string;
  let viewer: string;
  const url = (p: string) => `${gw.url}${p}`;
  const SECRET_URL = "http://user:pa55@127.0.0.1:9/live/index.m3u8?token=s3cret&x=1#frag";
  before(async () => {
    gw = await startGateway("full", {
      auth: {
        users: [
          { username: "admin", password_hash: hashFor(PASSWORD), role: "admin" },
          { username: "viewer", password_hash: hashFor(PASSWORD), role: "viewer" },
        ],
        login_rate_per_min: 1000,
      },
      upstreams: [{ id: "origin", base_url: "http://127.0.0.1:9/" }],
      channels: [
        { id: "a", title: "A", ingress: "hls", source_url: SECRET_URL },
        {
          id: "b",
          title: "B",
          ingress: "hls",
          upstream: "origin",
          path: "b/index.m3u8?sig=abc123",
        },
      ],
    });
    admin = await login(gw.url, "admin", PASSWORD);
    viewer = await login(gw.url, "viewer", PASSWORD);
  });
  after(async () => {
    await gw.stop();
  });

  it("a viewer session gets source_url and path without userinfo, query or fragment", async () => {
    const r = await requestJson(url("/v1/channels"), { token: viewer });
    assert.equal(r.status, 200, r.text);
    const [a, b] = r.body.channels;
    assert.equal(a.source_url, "http://127.0.0.1:9/live/index.m3u8");
    assert.equal(b.path, "b/index.m3u8");
    for (const secret of ["pa55", "s3cret", "abc123", "user:"])
      assert.ok(!r.text.includes(secret), secret);
  });

  it("an admin session and an admin API token with read see the stored values", async () => {
    const token = await createApiToken(gw.url, admin, ["read"]);
    for (const credential of [admin, token.token]) {
      const r = await requestJson(url("/v1/channels"), { token: credential });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.channels[0].source_url, SECRET_URL);
      assert.equal(r.body.channels[1].path, "b/index.m3u8?sig=abc123");
    }
  });
});
