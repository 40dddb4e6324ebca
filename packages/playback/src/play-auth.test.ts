import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Account, createStaticDirectory } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";
import { testSessionTokens } from "@svc/test-kits/playback-fixture";
import { createPlaybackAuthorizer } from "./play-auth.js";

const tokens = testSessionTokens();
const account = (authRevision: number): Account => ({
  configUsername: "viewer",
  username: "viewer",
  passwordHash: "$2b$04$x",
  role: "viewer",
  channelIds: ["a"],
  authRevision,
});

/** The real token service, counting how often a signature is actually checked. */
function counted() {
  let verifications = 0;
  return {
    tokens: {
      ...tokens,
      verify: (t: string) => {
        verifications += 1;
        return tokens.verify(t);
      },
    },
    get verifications() {
      return verifications;
    },
  };
}

const issue = () =>
  tokens
    .issueSession({
      accountKey: "viewer",
      username: "viewer",
      role: "viewer",
      channels: [],
      authRevision: 0,
    })
    .then((t) => t.token);

describe("playback authorizer: verified-token cache", () => {
  it("verifies a token once across polls, and once for concurrent first requests", async () => {
    const c = counted();
    let accounts = [account(0)];
    const auth = createPlaybackAuthorizer({
      requireAuth: true,
      tokens: c.tokens,
      accounts: { ...createStaticDirectory([]), byConfigUsername: () => accounts[0] },
    });
    const token = await issue();
    const grants = await Promise.all(
      Array.from({ length: 20 }, () => auth.authorize(token, undefined)),
    );
    assert.equal(c.verifications, 1);
    for (const g of grants) assert.deepEqual([...(g.channels ?? [])], ["a"]);
    await auth.authorize(token, undefined);
    assert.equal(c.verifications, 1);
    // The credential revision is still checked on every request: a password change ends it.
    accounts = [account(1)];
    await assert.rejects(auth.authorize(token, undefined), (e: unknown) => {
      assert.ok(e instanceof GatewayError);
      assert.equal(e.code, "unauthorized");
      return true;
    });
  });

  it("reuses a token's grant while the account record is the same, and follows a new record", async () => {
    let record: Account = account(0);
    const auth = createPlaybackAuthorizer({
      requireAuth: true,
      tokens,
      accounts: { ...createStaticDirectory([]), byConfigUsername: () => record },
    });
    const token = await issue();
    const first = await auth.authorize(token, undefined);
    assert.equal(auth.authorizeCached(token, undefined), first, "no new grant per poll");
    // An admin narrows the account's channels: the directory hands out a new record.
    record = { ...record, channelIds: ["b"] };
    const narrowed = auth.authorizeCached(token, undefined);
    assert.notEqual(narrowed, first);
    assert.deepEqual([...(narrowed?.channels ?? [])], ["b"]);
    assert.deepEqual([...(await auth.authorize(token, undefined)).channels!], ["b"]);
  });

  it("never remembers a failure", async () => {
    const c = counted();
    const auth = createPlaybackAuthorizer({
      requireAuth: true,
      tokens: c.tokens,
      accounts: createStaticDirectory([account(0)]),
    });
    const token = await issue();
    const forged = `${token.slice(0, -4)}AAAA`;
    await assert.rejects(auth.authorize(forged, undefined));
    await assert.rejects(auth.authorize(forged, undefined));
    assert.equal(c.verifications, 2);
    await auth.authorize(token, undefined);
    assert.equal(c.verifications, 3);
  });
});
