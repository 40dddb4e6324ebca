import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login } from "../harness/http-client.js";
import { TEST_STORAGE } from "../harness/storage-mode.js";
import { until } from "../harness/until.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

/**
 * `server.workers: 2` (docs/cluster.md "Workers"): the full binary as a primary and two
 * gateway workers on one port and one SQLite file, seen from outside as one gateway. Every
 * request goes on a connection of its own, so `node:cluster` hands them out in turn; which
 * worker answered is read from the JSON log line of the request (`worker`, by request id).
 */

/** One request on a fresh connection (no keep-alive: each may reach the other worker). */
function once(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: any; text: string }> {
  const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method ?? (payload === undefined ? "GET" : "POST"),
        agent: false,
        headers: {
          connection: "close",
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
          ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
          ...init.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => {
          let body: unknown;
          try {
            body = text === "" ? undefined : JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Request id → the `worker` of its access-log line, from the gateway's JSON stdout. */
function workersByRequest(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const rec = JSON.parse(line) as { msg?: string; reqId?: string; worker?: number };
      if (rec.msg === "request" && rec.reqId !== undefined && rec.worker !== undefined)
        out.set(rec.reqId, rec.worker);
    } catch {
      // a line cut by the pipe: not ours to judge
    }
  }
  return out;
}

/** The pids of the primary's workers, from their `worker N listening` lines. */
function workerPids(stdout: string): Map<number, number> {
  const pids = new Map<number, number>();
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const rec = JSON.parse(line) as { slot?: number; pid?: number; msg?: string };
      if (rec.slot !== undefined && rec.pid !== undefined && /listening$/.test(rec.msg ?? ""))
        pids.set(rec.slot, rec.pid);
    } catch {
      // ignored, as above
    }
  }
  return pids;
}

const LOGIN_RATE = 6;
const SKIP = TEST_STORAGE === "postgres" && "workers run on the embedded SQLite only";

describe("workers: server.workers 2 on one port and one SQLite file", { skip: SKIP }, () => {
  let gw: GatewayProcess;
  let src: DashLiveSource;
  let admin: string;
  let seq = 0;
  const rid = () => `workers-test-${process.pid}-${++seq}`;

  before(async () => {
    src = await startDashLiveSource({ heights: [360], languages: ["eng"] });
    await src.waitForSegments(3);
    gw = await startGateway(
      "full",
      {
        server: { workers: 2 },
        // The loopback DASH source: the egress guard refuses loopback unless listed.
        security: { allowed_hosts: ["127.0.0.1"] },
        auth: authSection([], { login_rate_per_min: LOGIN_RATE }),
        channels: [{ id: "news", title: "News", ingress: "dash", source_url: src.mpdUrl }],
      },
      { env: { SVC_LOG_LEVEL: "info", SVC_LOG_FORMAT: "json" } },
    );
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("both workers answer on the one port", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const id = rid();
      ids.push(id);
      const r = await once(`${gw.url}/healthz`, { headers: { "x-request-id": id } });
      assert.equal(r.status, 200);
    }
    const seen = await until(
      "the request lines of both workers",
      () => {
        // Every request's line written (a worker's log may trail its answer), then whose.
        const by = workersByRequest(gw.stdout());
        if (!ids.every((id) => by.has(id))) return undefined;
        const workers = new Set(ids.map((id) => by.get(id)));
        return workers.has(1) && workers.has(2) ? workers : undefined;
      },
      10_000,
    );
    assert.deepEqual([...seen].sort(), [1, 2]);
  });

  it("holds the login limiter's quota across the workers", async () => {
    // Spent so far: the admin's login in before(). LOGIN_RATE - 1 more attempts pass.
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_RATE; i++) {
      const r = await once(`${gw.url}/v1/auth/login`, {
        body: { username: "admin", password: "wrong-password" },
      });
      statuses.push(r.status);
    }
    assert.deepEqual(statuses, [...Array(LOGIN_RATE - 1).fill(401), 429]);
  });

  it("reads every write on the next request, whatever worker answers (50 rounds)", async () => {
    const body = { id: "rw", title: "RW 0", ingress: "hls", source_url: "http://127.0.0.2/x.m3u8" };
    const created = await once(`${gw.url}/v1/admin/channels`, { token: admin, body });
    assert.equal(created.status, 201, created.text);
    let revision = Number(
      (await once(`${gw.url}/v1/admin/channels/rw`, { token: admin })).body.revision,
    );
    const rounds: { put: string; get: string }[] = [];
    for (let i = 1; i <= 25; i++) {
      const putId = rid();
      const put = await once(`${gw.url}/v1/admin/channels/rw`, {
        method: "PUT",
        token: admin,
        body: { ...body, title: `RW ${i}` },
        headers: { "if-match": `"${revision}"`, "x-request-id": putId },
      });
      assert.equal(put.status, 200, `round ${i}: ${put.text}`);
      const id = rid();
      rounds.push({ put: putId, get: id });
      const got = await once(`${gw.url}/v1/admin/channels/rw`, {
        token: admin,
        headers: { "x-request-id": id },
      });
      assert.equal(got.status, 200);
      assert.equal(got.body.channel.title, `RW ${i}`, `round ${i}`);
      revision = Number(got.body.revision);
    }
    const by = await until(
      "the request lines of every round",
      () => {
        const m = workersByRequest(gw.stdout());
        return rounds.every((r) => m.has(r.put) && m.has(r.get)) ? m : undefined;
      },
      10_000,
    );
    const across = rounds.filter((r) => by.get(r.put) !== by.get(r.get)).length;
    assert.ok(across > 0, "some rounds wrote on one worker and read on the other");
  });

  it("a new API token works on every next request; once revoked, none passes", async () => {
    const created = await once(`${gw.url}/v1/admin/api-tokens`, {
      token: admin,
      body: { name: "workers", scopes: ["read"] },
    });
    assert.equal(created.status, 201, created.text);
    const token = created.body.token as string;
    for (let i = 0; i < 10; i++)
      assert.equal((await once(`${gw.url}/v1/admin/channels/rw`, { token })).status, 200);
    const revoked = await once(
      `${gw.url}/v1/admin/api-tokens/${created.body.credential.id}/revoke`,
      {
        method: "POST",
        token: admin,
        headers: { "if-match": `"${created.body.credential.revision}"` },
      },
    );
    assert.equal(revoked.status, 200, revoked.text);
    for (let i = 0; i < 20; i++)
      assert.equal((await once(`${gw.url}/v1/admin/channels/rw`, { token })).status, 401);
  });

  it("a revoked playback key is refused on every next request", async () => {
    const created = await once(`${gw.url}/v1/admin/access-tokens`, {
      token: admin,
      body: { name: "workers-key" },
    });
    assert.equal(created.status, 201, created.text);
    const key = created.body.token as string;
    for (let i = 0; i < 10; i++)
      assert.equal((await once(`${gw.url}/p/${key}/playlist.m3u`)).status, 200);
    const revoked = await once(`${gw.url}/v1/admin/access-tokens/${created.body.id}/revoke`, {
      method: "POST",
      token: admin,
    });
    assert.equal(revoked.status, 200, revoked.text);
    for (let i = 0; i < 20; i++)
      assert.equal((await once(`${gw.url}/p/${key}/playlist.m3u`)).status, 401);
  });

  it("/metrics and /v1/status count what every worker served, whatever worker answers", async () => {
    /** Requests sent with ids, then the set of workers that answered them (from their log lines). */
    const answeredBy = (ids: readonly string[]) =>
      until(
        "the request lines",
        () => {
          const m = workersByRequest(gw.stdout());
          return ids.every((id) => m.has(id)) ? new Set(ids.map((id) => m.get(id))) : undefined;
        },
        10_000,
      );
    const counters = async () => {
      const id = rid();
      const r = await once(`${gw.url}/v1/status`, {
        token: admin,
        headers: { "x-request-id": id },
      });
      assert.equal(r.status, 200, r.text);
      return { id, requests: r.body.requests as number, uptime: r.body.uptime_sec as number };
    };
    const before = await counters();
    // Play requests of the HLS channel "rw" (its source refused: each answer is an error,
    // counted all the same), each on its own connection, so both workers serve some.
    const plays: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = rid();
      plays.push(id);
      await once(`${gw.url}/v1/play/rw/index.m3u8`, {
        token: admin,
        headers: { "x-request-id": id },
      });
    }
    // A route nothing else in this suite requests: its counter is exactly these 10.
    const listed: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = rid();
      listed.push(id);
      const r = await once(`${gw.url}/v1/admin/upstreams`, {
        token: admin,
        headers: { "x-request-id": id },
      });
      assert.equal(r.status, 200, r.text);
    }
    assert.deepEqual([...(await answeredBy(plays))].sort(), [1, 2]);
    assert.deepEqual([...(await answeredBy(listed))].sort(), [1, 2]);
    // Several answers of each, so both workers answer some: each has every worker's counts.
    const statuses: string[] = [];
    for (let i = 0; i < 6; i++) {
      const after = await counters();
      statuses.push(after.id);
      assert.equal(after.requests - before.requests, 10, `status ${i}: every worker's plays`);
      assert.ok(after.uptime >= before.uptime);
    }
    const scrapes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = rid();
      scrapes.push(id);
      const r = await once(`${gw.url}/metrics`, { headers: { "x-request-id": id } });
      assert.equal(r.status, 200);
      assert.match(
        r.text,
        /^svc_http_requests_total\{method="GET",route="\/v1\/admin\/upstreams",status="200"\} 10$/m,
        `scrape ${i}: every worker's requests`,
      );
      // One line per metric and label set: the workers' series are merged, not listed twice.
      assert.equal(r.text.match(/^# TYPE svc_http_requests_total /gm)?.length, 1);
    }
    assert.deepEqual([...(await answeredBy(statuses))].sort(), [1, 2]);
    assert.deepEqual([...(await answeredBy(scrapes))].sort(), [1, 2]);
  });

  it("packages a DASH channel once across the workers: one session, one reader of the source", async () => {
    const master = await once(`${gw.url}/v1/play/news/index.m3u8`, { token: admin });
    assert.equal(master.status, 200, master.text);
    const playIds: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = rid();
      playIds.push(id);
      const r = await once(`${gw.url}/v1/play/news/index.m3u8`, {
        token: admin,
        headers: { "x-request-id": id },
      });
      assert.equal(r.status, 200, `request ${i}: ${r.text}`);
    }
    // Both workers answered the channel's playlist: the owner from its packager, the
    // other one by fetching it from the owner's own port.
    const played = await until(
      "the play request lines",
      () => {
        const m = workersByRequest(gw.stdout());
        return playIds.every((id) => m.has(id))
          ? new Set(playIds.map((id) => m.get(id)))
          : undefined;
      },
      10_000,
    );
    assert.deepEqual([...played].sort(), [1, 2]);
    // Every worker's status lists the cluster's sessions: one packaging, the other remote.
    for (let i = 0; i < 6; i++) {
      const st = await once(`${gw.url}/v1/status`, { token: admin });
      const news = (st.body.sessions as Array<Record<string, unknown>>).filter(
        (s) => s.channel_id === "news",
      );
      assert.equal(news.filter((s) => s.state !== "remote").length <= 1, true, st.text);
      assert.equal(news.length, 1, `one session of news: ${st.text}`);
    }
    // The origin sees one reader: the MPD is fetched by one packager (one user agent
    // cadence); a second packager would fetch every segment a second time.
    const segments = src.requests.filter((r) => /\.m4s$/.test(r.path) && r.status === 200);
    const paths = segments.map((r) => r.path);
    assert.equal(new Set(paths).size, paths.length, "no segment fetched twice");
  });

  it("restarts the packaging worker killed with SIGKILL, and the channel plays on", async () => {
    // The packaging worker: the one whose status lists the session as its own.
    const owner = await until(
      "the packaging worker",
      async () => {
        const id = rid();
        const st = await once(`${gw.url}/v1/status`, {
          token: admin,
          headers: { "x-request-id": id },
        });
        const own = (st.body.sessions as Array<Record<string, unknown>>).some(
          (s) => s.channel_id === "news" && s.state !== "remote",
        );
        if (!own) return undefined;
        return until("its request line", () => workersByRequest(gw.stdout()).get(id), 10_000);
      },
      20_000,
    );
    const victim = workerPids(gw.stdout()).get(owner);
    assert.ok(victim !== undefined, gw.stdout().slice(-2000));
    process.kill(victim, "SIGKILL");
    await until(
      `worker ${owner} back with a new pid`,
      () => {
        const now = workerPids(gw.stdout()).get(owner);
        return now !== undefined && now !== victim ? now : undefined;
      },
      30_000,
    );
    // The channel plays through both workers again (its lease moved or stayed, within 20 s).
    await until(
      "the channel playing on the next requests",
      async () => {
        for (let i = 0; i < 4; i++) {
          const r = await once(`${gw.url}/v1/play/news/index.m3u8`, { token: admin });
          if (r.status !== 200) return undefined;
        }
        return true;
      },
      30_000,
    );
  });

  it("stops cleanly on SIGTERM: exit 0, no worker left", async () => {
    const pids = [...workerPids(gw.stdout()).values()];
    const code = await gw.stop();
    assert.equal(code, 0);
    for (const pid of pids)
      assert.throws(() => process.kill(pid, 0), { code: "ESRCH" }, `worker ${pid} still runs`);
  });
});
