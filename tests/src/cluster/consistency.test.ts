import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { after, before, describe, it } from "node:test";
import { onEveryInstance, type RunningCluster, startCluster } from "../harness/cluster.js";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import type { GatewayProcess } from "../harness/gateway-process.js";
import { hlsFixtures } from "../harness/hls-fixtures.js";
import { requestJson } from "../harness/http-client.js";
import { hasNginx } from "../harness/nginx-front.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { createDatabase, POSTGRES_MISSING } from "../harness/postgres-server.js";
import { until } from "../harness/until.js";
import { ADMIN_PASSWORD } from "../harness/users.js";

/**
 * Issue 30 item 11: cluster consistency (operator contract "Cluster mode"). Three full
 * binaries on one private PostgreSQL: an admin read on any instance reflects every write
 * acknowledged before it was sent; revocations (API tokens, playback keys, credential
 * changes, disabled channels) reach every instance within 1 s; a session stop sent to an
 * instance that does not package the channel stops it on its owner.
 *
 * Timing bounds. Each revocation is repeated {@link ROUNDS} times, the time from the
 * write's answer until both other instances refuse is measured, and the test asserts the
 * median is under {@link MEDIAN_BOUND_MS} and every round under the contract's 1 s.
 * With only the 1 s poll (before issue 30) the other instances refuse after 0–1000 ms
 * each; and since each round first waits until every instance accepts the new credential
 * (which, with only the poll, happens just after a poll), the revocation then waits
 * for nearly a whole interval: measured 630–920 ms medians. The pushed change (NOTIFY)
 * takes a few milliseconds plus one probe's round trip (measured 40–120 ms medians), so
 * the median holds with a wide margin on a loaded host, where one slow round cannot move it.
 */
const SKIP = POSTGRES_MISSING || (hasNginx() ? false : "nginx is not installed");
const ROUNDS = 5;
const MEDIAN_BOUND_MS = 300;
const CONTRACT_MS = 1_000;

/** Milliseconds until `refused` holds for every gateway, probing each one back to back. */
async function timeUntilRefused(
  gateways: readonly GatewayProcess[],
  refused: (gw: GatewayProcess) => Promise<boolean>,
  giveUpMs = 10_000,
): Promise<number> {
  const t0 = performance.now();
  const times = await Promise.all(
    gateways.map(async (gw) => {
      for (;;) {
        if (await refused(gw)) return performance.now() - t0;
        if (performance.now() - t0 > giveUpMs)
          throw new Error(`${gw.url} still accepts after ${giveUpMs} ms`);
      }
    }),
  );
  return Math.max(...times);
}

function assertPropagation(what: string, ms: number[]): void {
  const sorted = [...ms].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  process.stdout.write(
    `# ${what}: refused on every other instance after ${ms.map((m) => m.toFixed(0)).join(", ")} ms (median ${median.toFixed(0)})\n`,
  );
  assert.ok(
    median < MEDIAN_BOUND_MS,
    `${what}: median ${median.toFixed(0)} ms, not pushed (bound ${MEDIAN_BOUND_MS} ms)`,
  );
  assert.ok(
    sorted.at(-1)! < CONTRACT_MS,
    `${what}: a round took ${sorted.at(-1)!.toFixed(0)} ms (contract: 1 s)`,
  );
}

describe("cluster consistency: read-after-write, revocations within 1 s, session stop anywhere", {
  skip: SKIP,
}, () => {
  let cluster: RunningCluster;
  let gateways: GatewayProcess[];
  let admin: string;
  let origin: Origin;
  let src: DashLiveSource;
  const others = (i: number) => gateways.filter((_, j) => j !== i);

  before(async () => {
    origin = await startOrigin({ root: await hlsFixtures() });
    src = await startDashLiveSource({ heights: [360], languages: ["eng"] });
    await src.waitForSegments(3);
    const databaseUrl = (await createDatabase())!;
    cluster = await startCluster(3, databaseUrl, { idleStopSec: 120 });
    ({ gateways, admin } = cluster);
  });
  after(async () => {
    await cluster?.stop();
    await src?.stop();
    await origin?.close();
  });

  it("read-after-write: a write acknowledged on one instance is in the very next read on the others", async () => {
    for (let i = 0; i < 6; i += 1) {
      const writer = gateways[i % 3]!;
      const id = `raw-${i}`;
      const created = await requestJson(`${writer.url}/v1/admin/channels`, {
        token: admin,
        body: {
          id,
          title: `Created ${i}`,
          ingress: "hls",
          source_url: `${origin.url}/vod/master.m3u8`,
        },
      });
      assert.equal(created.status, 201, created.text);
      // No wait: the read is sent after the write's answer arrived.
      for (const gw of others(i % 3)) {
        const read = await requestJson(`${gw.url}/v1/admin/channels/${id}`, { token: admin });
        assert.equal(read.status, 200, `round ${i}, ${gw.url}: ${read.text}`);
        assert.equal(read.body.channel.title, `Created ${i}`);
        assert.equal(read.headers.get("etag"), '"1"');
      }
      const edited = await requestJson(`${gateways[(i + 1) % 3]!.url}/v1/admin/channels/${id}`, {
        method: "PUT",
        token: admin,
        body: {
          id,
          title: `Edited ${i}`,
          ingress: "hls",
          source_url: `${origin.url}/vod/master.m3u8`,
        },
        headers: { "if-match": '"1"' },
      });
      assert.equal(edited.status, 200, edited.text);
      for (const gw of others((i + 1) % 3)) {
        const list = await requestJson(`${gw.url}/v1/admin/channels`, { token: admin });
        assert.equal(list.status, 200);
        const row = (list.body.channels as Array<Record<string, unknown>>).find((c) => c.id === id);
        assert.deepEqual(
          { title: row?.title, revision: row?.revision },
          { title: `Edited ${i}`, revision: 2 },
          `round ${i}, ${gw.url}`,
        );
      }
      // A credential resource too: a token created on one instance is listed by the next.
      const token = await requestJson(`${gateways[(i + 2) % 3]!.url}/v1/admin/api-tokens`, {
        token: admin,
        body: { name: `raw-${i}`, scopes: ["read"] },
      });
      assert.equal(token.status, 201, token.text);
      const listed = await requestJson(`${writer.url}/v1/admin/api-tokens`, { token: admin });
      assert.ok(
        (listed.body.tokens as Array<{ id: string }>).some(
          (t) => t.id === token.body.credential.id,
        ),
        `round ${i}: the new API token is listed on ${writer.url}`,
      );
    }
  });

  it("read-after-write for credentials: an API token and a playback key created on one instance work at once on the others", async () => {
    for (let i = 0; i < 6; i += 1) {
      const writer = gateways[i % 3]!;
      const token = await requestJson(`${writer.url}/v1/admin/api-tokens`, {
        token: admin,
        body: { name: `fresh-${i}`, scopes: ["read"] },
      });
      assert.equal(token.status, 201, token.text);
      // No wait: used on both other instances as soon as the write's answer arrived.
      await Promise.all(
        others(i % 3).map(async (gw) => {
          const me = await requestJson(`${gw.url}/v1/me`, { token: token.body.token as string });
          assert.equal(me.status, 200, `round ${i}, ${gw.url}: ${me.text}`);
          assert.deepEqual(
            { username: me.body.username, credential: me.body.credential, scopes: me.body.scopes },
            { username: `fresh-${i}`, credential: "api_token", scopes: ["read"] },
          );
        }),
      );
      const key = await requestJson(`${writer.url}/v1/admin/access-tokens`, {
        token: admin,
        body: { name: `fresh-key-${i}` },
      });
      assert.equal(key.status, 201, key.text);
      await Promise.all(
        others(i % 3).map(async (gw) => {
          const playlist = await requestJson(`${gw.url}/p/${key.body.token}/playlist.m3u`);
          assert.equal(playlist.status, 200, `round ${i}, ${gw.url}: ${playlist.text}`);
          // The key's playlist (its channels are whatever earlier tests created).
          assert.match(playlist.text, /^#EXTM3U/);
        }),
      );
    }
  });

  it("a flood of unknown credentials starts at most one catch-up per 100 ms on an instance", async () => {
    const gw = gateways[1]!;
    const catchUps = async () => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      const m = /^svc_credential_catchups_total (\d+)$/m.exec(text);
      assert.ok(m !== null, "no svc_credential_catchups_total in /metrics");
      return Number(m[1]);
    };
    const before = await catchUps();
    const t0 = performance.now();
    let sent = 0;
    // Well-formed API tokens and playback keys that exist nowhere, 50 at a time, for ~1 s.
    while (performance.now() - t0 < 1_000) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          k % 2 === 0
            ? requestJson(`${gw.url}/v1/me`, {
                token: `svc_v1_${randomBytes(24).toString("hex")}`,
              })
            : requestJson(`${gw.url}/p/v1${randomBytes(63).toString("hex")}/playlist.m3u`),
        ),
      );
      for (const a of answers) {
        assert.equal(a.status, 401, a.text);
        assert.equal(a.body.error.code, "unauthorized");
      }
      sent += answers.length;
    }
    const elapsed = performance.now() - t0;
    const ran = (await catchUps()) - before;
    process.stdout.write(
      `# ${sent} unknown credentials in ${elapsed.toFixed(0)} ms: ${ran} catch-ups with the database\n`,
    );
    // Each miss waits for a catch-up that starts after it arrived, and starts are 100 ms apart
    // at least: every miss was checked against the database, at a bounded cost.
    assert.ok(ran >= 1, "no catch-up for an unknown credential");
    assert.ok(
      ran <= Math.floor(elapsed / 100) + 1,
      `${ran} catch-ups for ${sent} misses in ${elapsed.toFixed(0)} ms`,
    );
  });

  type Answer = Awaited<ReturnType<typeof requestJson>>;
  /** One round of a revocation test: the request probing it, and the write that revokes. */
  interface Round {
    probe(gw: GatewayProcess): Promise<Answer>;
    revoke(): Promise<void>;
    /** Runs after the other instances refused (undoes the write for the next round). */
    restore?(): Promise<void>;
  }

  /**
   * {@link ROUNDS} rounds, the writer rotating over the instances: `start` prepares one; the
   * probe must pass (200) on every instance, then `revoke` runs and the time until both
   * other instances answer `refused` is measured; {@link assertPropagation} judges the times.
   */
  async function revocationRounds(
    what: string,
    refused: { status: number; code: string },
    start: (writer: GatewayProcess, i: number) => Promise<Round>,
    accepted: (r: Answer) => void = () => {},
  ): Promise<void> {
    const ms: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      const round = await start(gateways[i % 3]!, i);
      await onEveryInstance(
        `${what}: accepted before the write`,
        gateways,
        async (gw) => (await round.probe(gw)).status === 200,
      );
      await round.revoke();
      ms.push(
        await timeUntilRefused(others(i % 3), async (gw) => {
          const r = await round.probe(gw);
          if (r.status === 200) {
            accepted(r);
            return false;
          }
          assert.equal(r.status, refused.status, r.text);
          assert.equal(r.body.error.code, refused.code);
          return true;
        }),
      );
      await round.restore?.();
    }
    assertPropagation(what, ms);
  }
  const UNAUTHORIZED = { status: 401, code: "unauthorized" };
  const isPlaylist = (r: Answer) => assert.match(r.text, /^#EXTM3U/);

  it("revoking an API token on one instance: every other instance refuses it within 1 s", async () => {
    await revocationRounds("API token revocation", UNAUTHORIZED, async (writer, i) => {
      const created = await requestJson(`${writer.url}/v1/admin/api-tokens`, {
        token: admin,
        body: { name: `revoke-${i}`, scopes: ["read"] },
      });
      assert.equal(created.status, 201, created.text);
      return {
        probe: (gw) => requestJson(`${gw.url}/v1/me`, { token: created.body.token as string }),
        async revoke() {
          const revoked = await requestJson(
            `${writer.url}/v1/admin/api-tokens/${created.body.credential.id}/revoke`,
            {
              method: "POST",
              token: admin,
              headers: { "if-match": `"${created.body.credential.revision}"` },
            },
          );
          assert.equal(revoked.status, 200, revoked.text);
        },
      };
    });
  });

  it("revoking a playback key on one instance: every other instance refuses it within 1 s", async () => {
    await revocationRounds(
      "playback key revocation",
      UNAUTHORIZED,
      async (writer, i) => {
        const created = await requestJson(`${writer.url}/v1/admin/access-tokens`, {
          token: admin,
          body: { name: `key-${i}` },
        });
        assert.equal(created.status, 201, created.text);
        return {
          probe: (gw) => requestJson(`${gw.url}/p/${created.body.token}/playlist.m3u`),
          async revoke() {
            const revoked = await requestJson(
              `${writer.url}/v1/admin/access-tokens/${created.body.id}/revoke`,
              { method: "POST", token: admin },
            );
            assert.equal(revoked.status, 200, revoked.text);
          },
        };
      },
      isPlaylist,
    );
  });

  it("disabling a channel on one instance: every other instance refuses to play it within 1 s", async () => {
    const body = {
      id: "to-disable",
      title: "To disable",
      ingress: "hls",
      source_url: `${origin.url}/vod/master.m3u8`,
    };
    const created = await requestJson(`${gateways[0]!.url}/v1/admin/channels`, {
      token: admin,
      body,
    });
    assert.equal(created.status, 201, created.text);
    let revision = 1;
    const put = async (writer: GatewayProcess, disabled: boolean) => {
      const r = await requestJson(`${writer.url}/v1/admin/channels/to-disable`, {
        method: "PUT",
        token: admin,
        body: { ...body, disabled },
        headers: { "if-match": `"${revision}"` },
      });
      assert.equal(r.status, 200, r.text);
      revision += 1;
    };
    await revocationRounds(
      "channel disable",
      { status: 404, code: "not_found" },
      async (writer) => ({
        probe: (gw) => requestJson(`${gw.url}/v1/play/to-disable/index.m3u8`),
        revoke: () => put(writer, true),
        restore: () => put(writer, false),
      }),
      isPlaylist,
    );
  });

  it("changing a password on one instance: every other instance refuses the old session within 1 s", async () => {
    // The admin's own (credential changes are admin-only); the suite goes on with the new session.
    const passwords = [ADMIN_PASSWORD, "admin-password-2"];
    let session = admin;
    await revocationRounds("credential change", UNAUTHORIZED, async (writer, i) => {
      const old = session;
      return {
        probe: (gw) => requestJson(`${gw.url}/v1/me`, { token: old }),
        async revoke() {
          const changed = await requestJson(`${writer.url}/v1/me/credentials`, {
            method: "PUT",
            token: old,
            body: { current_password: passwords[i % 2], new_password: passwords[(i + 1) % 2] },
          });
          assert.equal(changed.status, 200, changed.text);
          session = changed.body.token as string;
        },
      };
    });
    admin = session;
  });

  it("DELETE /v1/admin/sessions/{id} on an instance that does not package the channel stops it on its owner", async () => {
    const created = await requestJson(`${gateways[0]!.url}/v1/admin/channels`, {
      token: admin,
      body: { id: "stop-me", title: "Stop me", ingress: "dash", source_url: src.mpdUrl },
    });
    assert.equal(created.status, 201, created.text);
    const warm = await requestJson(`${gateways[1]!.url}/v1/admin/channels/stop-me/warmup`, {
      method: "POST",
      token: admin,
    });
    assert.equal(warm.status, 202, warm.text);
    const ownSession = async (gw: GatewayProcess) => {
      const st = await requestJson(`${gw.url}/v1/status`, { token: admin });
      assert.equal(st.status, 200, st.text);
      return (st.body.sessions as Array<Record<string, unknown>>).find(
        (s) => s.channel_id === "stop-me" && s.state !== "remote",
      );
    };
    const owner = await until(
      "the packaging instance",
      async () => {
        for (const gw of gateways) if ((await ownSession(gw)) !== undefined) return gw;
        return undefined;
      },
      20_000,
    );
    for (const gw of gateways.filter((g) => g !== owner)) {
      assert.equal(await ownSession(gw), undefined, `${gw.url} does not package the channel`);
    }
    const notOwner = gateways.find((g) => g !== owner)!;
    const stopped = await requestJson(`${notOwner.url}/v1/admin/sessions/stop-me`, {
      method: "DELETE",
      token: admin,
    });
    assert.equal(stopped.status, 204, stopped.text);
    assert.equal(stopped.text, "");
    // Stopped when the 204 arrived: no wait.
    assert.equal(await ownSession(owner), undefined, "the owner's session is gone");
    // Nothing runs anywhere now: a second stop, on either instance, is 404.
    for (const gw of [notOwner, owner]) {
      const again = await requestJson(`${gw.url}/v1/admin/sessions/stop-me`, {
        method: "DELETE",
        token: admin,
      });
      assert.equal(again.status, 404, again.text);
      assert.equal(again.body.error.code, "not_found");
    }
    // The stop still needs an admin: without a credential, or with a forged instance
    // token, the non-owner and the owner refuse it.
    const warmAgain = await requestJson(`${owner.url}/v1/admin/channels/stop-me/warmup`, {
      method: "POST",
      token: admin,
    });
    assert.equal(warmAgain.status, 202, warmAgain.text);
    for (const gw of gateways) {
      const anonymous = await requestJson(`${gw.url}/v1/admin/sessions/stop-me`, {
        method: "DELETE",
      });
      assert.equal(anonymous.status, 401, anonymous.text);
      const forged = await requestJson(`${gw.url}/v1/admin/sessions/stop-me`, {
        method: "DELETE",
        headers: {
          "x-svc-instance-token": `s1.${(Date.now() + 10_000).toString(36)}.${"A".repeat(43)}`,
        },
      });
      assert.equal(forged.status, 403, forged.text);
      assert.equal(forged.body.error.code, "forbidden");
    }
    assert.notEqual(
      await ownSession(owner),
      undefined,
      "the refused stops left the session running",
    );
  });
});
