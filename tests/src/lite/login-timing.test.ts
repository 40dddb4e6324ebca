import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";
import { hashFor } from "../harness/users.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Issue 12 item 8: the dummy hash compared for an unknown username takes the
 * highest bcrypt cost among the configured users. Here every user has cost 4
 * (about a millisecond); a fixed cost-12 decoy (256 times the work) made an
 * unknown username take a quarter of a second longer than a known one.
 */
describe("lite: login time does not tell which usernames exist", () => {
  let gw: GatewayProcess;
  before(async () => {
    gw = await startGateway("lite", {
      auth: {
        users: [{ username: "admin", password_hash: hashFor("admin-password-1"), role: "admin" }],
        login_rate_per_min: 1000,
      },
      channels: [],
    });
  });
  after(async () => {
    await gw.stop();
  });

  const timed = async (username: string) => {
    const started = performance.now();
    const r = await requestJson(`${gw.url}/v1/auth/login`, {
      body: { username, password: "not-the-password" },
    });
    assert.equal(r.status, 401);
    return performance.now() - started;
  };

  it("an unknown username costs what a known one with a wrong password costs", async () => {
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, so machine load hits both series alike.
    for (let i = 0; i < 11; i++) {
      known.push(await timed("admin"));
      unknown.push(await timed(`nobody-${i}`));
    }
    const k = median(known);
    const u = median(unknown);
    assert.ok(u < k + 40, `unknown ${u.toFixed(1)} ms vs known ${k.toFixed(1)} ms`);
  });
});
