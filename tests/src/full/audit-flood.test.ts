import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { requestJson } from "../harness/http-client.js";
import { createApiToken, type FullGateway, startFull } from "./full-fixture.js";

/** A GET with a bearer, sent from a chosen loopback source address. */
function getFrom(url: string, token: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { localAddress, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.once("error", reject);
    req.end();
  });
}

const unknownToken = (i: number) => `svc_v1_${String(i).padStart(48, "Z")}`;

describe("full: unknown API tokens cannot flood the audit log (issue 12 item 1)", () => {
  let f: FullGateway;
  before(async () => {
    f = await startFull();
  });
  after(async () => {
    await f.gw.stop();
  });

  it("folds anonymous denials, bounds their paths, and keeps real tokens' records listed", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"]);
    const revoked = await createApiToken(f.base, f.admin, ["read"]);
    await requestJson(`${f.base}/v1/admin/api-tokens/${revoked.id}/revoke`, {
      method: "POST",
      token: f.admin,
      headers: { "if-match": `"${revoked.revision}"` },
    });
    assert.equal(
      (await requestJson(`${f.base}/v1/admin/channels`, { token: t.token })).status,
      200,
    );
    const denied = await requestJson(`${f.base}/v1/admin/channels/enable-all`, {
      method: "POST",
      token: t.token,
    });
    assert.equal(denied.status, 403);
    assert.equal((await requestJson(`${f.base}/v1/me`, { token: revoked.token })).status, 401);

    // 240 anonymous requests from 127.0.0.1 and 10 from 127.0.0.2, each with a
    // fresh unknown token and a 3,000-character path: more than twice the listing.
    const long = `/v1/admin/${"x".repeat(3000)}`;
    for (let i = 0; i < 240; i++) {
      const r = await requestJson(`${f.base}${long}${i}`, { token: unknownToken(i) });
      assert.equal(r.status, 401);
    }
    for (let i = 0; i < 10; i++)
      assert.equal(await getFrom(`${f.base}${long}`, unknownToken(1000 + i), "127.0.0.2"), 401);

    const logs = await requestJson(`${f.base}/v1/admin/api-token-logs`, { token: f.admin });
    assert.equal(logs.status, 200);
    const list: any[] = logs.body.logs;
    // Every record of the real tokens is still there, each on its own.
    const mine = list.filter((l) => l.token_id === t.id);
    assert.deepEqual(
      mine.map((l) => [l.decision, l.status, l.reason ?? null]),
      [
        ["deny", 403, "missing_scope"],
        ["allow", 200, null],
      ],
    );
    const theirs = list.filter((l) => l.token_id === revoked.id);
    assert.deepEqual(
      theirs.map((l) => [l.decision, l.status, l.reason]),
      [["deny", 401, "revoked"]],
    );
    // Anonymous denials: five individual records per client, then one folded summary.
    const anonymous = list.filter((l) => l.token_id === "");
    const individual = anonymous.filter((l) => l.method === "GET");
    assert.equal(individual.filter((l) => l.remote === "127.0.0.1").length, 5);
    assert.equal(individual.filter((l) => l.remote === "127.0.0.2").length, 5);
    const folded = anonymous.filter((l) => l.method === "*");
    assert.equal(folded.length, 1, JSON.stringify(folded));
    assert.match(folded[0].path, /^\(240 more requests with unknown API tokens from 2 client\(s\)/);
    assert.equal(folded[0].reason, "invalid");
    for (const l of list) assert.ok(l.path.length <= 256, `path of ${l.path.length} characters`);
  });

  it("a second flood after the listing still cannot push the real records out", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"]);
    await requestJson(`${f.base}/v1/me`, {
      token: t.token,
      headers: { "x-request-id": "keep-me" },
    });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 120; i++)
        await requestJson(`${f.base}/v1/admin/nothing-${i}`, { token: unknownToken(5000 + i) });
      // Each listing read closes the fold window, as a new minute would.
      await requestJson(`${f.base}/v1/admin/api-token-logs`, { token: f.admin });
    }
    const logs = await requestJson(`${f.base}/v1/admin/api-token-logs`, { token: f.admin });
    const list: any[] = logs.body.logs;
    assert.ok(
      list.some((l) => l.request_id === "keep-me"),
      "the real token's record is listed",
    );
    assert.ok(list.filter((l) => l.token_id === "").length <= 20);
    assert.ok(list.length <= 100);
  });
});
