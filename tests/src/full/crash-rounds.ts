import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

/**
 * Crash loops (issue 14 item 4): rounds of "start the full binary on the same data_dir, check
 * that everything acknowledged so far is there, burst admin writes and logged playback
 * requests, SIGKILL mid-burst, run `PRAGMA integrity_check` on the left-over files". Shared by
 * the bounded `npm test` suite and the 20-round `npm run soak`.
 */

const CONFIG = {
  auth: authSection([], { login_rate_per_min: 100_000 }),
  channels: [
    { id: "seed", title: "Seed", ingress: "hls", source_url: "http://127.0.0.1:9/s.m3u8" },
  ],
};

/** What the gateway answered 2xx to, across every round: all of it must survive. */
export interface Acknowledged {
  /** Channel id → titles that may be stored: the last acknowledged one, plus one in flight. */
  readonly channels: Map<string, { acked: string; inFlight?: string }>;
  settings: { acked: string; inFlight?: string } | undefined;
  readonly apiTokens: Map<string, string>;
  readonly playbackKeys: Set<string>;
  /** Access-record ids a listing (which writes the queue first) has shown. */
  readonly accessRecords: Set<number>;
  /** Counts for the report. */
  readonly counts: { writes: number; plays: number; kills: number };
}

export function emptyAcknowledged(): Acknowledged {
  return {
    channels: new Map(),
    settings: undefined,
    apiTokens: new Map(),
    playbackKeys: new Set(),
    accessRecords: new Set(),
    counts: { writes: 0, plays: 0, kills: 0 },
  };
}

function waitExit(gw: GatewayProcess): Promise<void> {
  return new Promise((res) => {
    if (gw.proc.exitCode !== null || gw.proc.signalCode !== null) res();
    else gw.proc.once("exit", () => res());
  });
}

/** `PRAGMA integrity_check` on the database the killed gateway left (WAL included). */
export function integrityCheck(dataDir: string): { result: string; accessIds: Set<number> } {
  const db = new Database(join(dataDir, "state.db"), { fileMustExist: true });
  try {
    const result = String(db.pragma("integrity_check", { simple: true }));
    const rows = db.prepare("SELECT id FROM playback_access_log").all() as { id: number }[];
    return { result, accessIds: new Set(rows.map((r) => r.id)) };
  } finally {
    db.close();
  }
}

/** Checks through the API that every acknowledged write of earlier rounds is there. */
export async function verifyAcknowledged(base: string, session: string, ack: Acknowledged) {
  const channels = await requestJson(`${base}/v1/admin/channels`, { token: session });
  assert.equal(channels.status, 200, channels.text);
  const stored = new Map<string, string>(channels.body.channels.map((c: any) => [c.id, c.title]));
  for (const [id, t] of ack.channels) {
    assert.ok(stored.has(id), `acknowledged channel ${id} is gone`);
    const title = stored.get(id)!;
    assert.ok(
      title === t.acked || title === t.inFlight,
      `${id}: title ${title}, acknowledged ${t.acked}`,
    );
    // What is stored is now what later rounds must find.
    ack.channels.set(id, { acked: title });
  }
  if (ack.settings !== undefined) {
    const s = await requestJson(`${base}/v1/admin/settings`, { token: session });
    const url = s.body.public_base_url;
    assert.ok(url === ack.settings.acked || url === ack.settings.inFlight, `settings: ${url}`);
    ack.settings = { acked: url };
  }
  const tokens = await requestJson(`${base}/v1/admin/api-tokens`, { token: session });
  const tokenIds = new Set(tokens.body.tokens.map((t: any) => t.id));
  for (const id of ack.apiTokens.keys()) assert.ok(tokenIds.has(id), `API token ${id} is gone`);
  // The newest token's plaintext still authenticates (its digest survived, not only its row).
  const newest = [...ack.apiTokens.values()].at(-1);
  if (newest !== undefined)
    assert.equal((await requestJson(`${base}/v1/me`, { token: newest })).status, 200);
  const keys = await requestJson(`${base}/v1/admin/access-tokens`, { token: session });
  const keyIds = new Set(keys.body.access_tokens.map((k: any) => k.id));
  for (const id of ack.playbackKeys) assert.ok(keyIds.has(id), `playback key ${id} is gone`);
}

/**
 * One round: start, verify, burst for `burstMs`, SIGKILL, integrity check. Returns when the
 * killed process has exited and the files were checked.
 */
export async function crashRound(dir: string, round: number, ack: Acknowledged, burstMs: number) {
  const gw = await startGateway("full", CONFIG, { dir, timeoutMs: 120_000 });
  const base = gw.url;
  const session = await login(base, "admin", ADMIN_PASSWORD);
  await verifyAcknowledged(base, session, ack);

  const key = await requestJson(`${base}/v1/admin/access-tokens`, {
    token: session,
    body: { name: `round-${round}` },
  });
  assert.equal(key.status, 201, key.text);
  ack.playbackKeys.add(key.body.id);
  const settings = await requestJson(`${base}/v1/admin/settings`, { token: session });
  let settingsRevision: number = settings.body.revision;

  let killed = false;
  const ended = (err: unknown) => {
    // Only the kill may cut a request; anything else fails the round (and ends the burst).
    if (killed) return;
    killed = true;
    gw.proc.kill("SIGKILL");
    throw err;
  };
  const channelWorker = async (w: number) => {
    const mine: { id: string; revision: string }[] = [];
    for (let i = 0; !killed; i++) {
      try {
        if (i % 3 === 2 && mine.length > 0) {
          const c = mine[i % mine.length]!;
          const title = `r${round}-w${w}-${i}`;
          ack.channels.get(c.id)!.inFlight = title;
          const r = await requestJson(`${base}/v1/admin/channels/${c.id}`, {
            method: "PUT",
            token: session,
            headers: { "if-match": c.revision },
            body: {
              id: c.id,
              title,
              ingress: "hls",
              source_url: `http://127.0.0.1:9/${c.id}.m3u8`,
            },
          });
          assert.equal(r.status, 200, r.text);
          ack.channels.set(c.id, { acked: title });
          c.revision = r.headers.get("etag")!;
        } else {
          const id = `r${round}-w${w}-${i}`;
          // A create cut by the kill may or may not have committed: only a 201 counts.
          const r = await requestJson(`${base}/v1/admin/channels`, {
            token: session,
            body: { id, title: id, ingress: "hls", source_url: `http://127.0.0.1:9/${id}.m3u8` },
          });
          if (killed && r.status !== 201) return;
          assert.equal(r.status, 201, r.text);
          ack.channels.set(id, { acked: id });
          mine.push({ id, revision: r.headers.get("etag")! });
        }
        ack.counts.writes++;
      } catch (err) {
        return ended(err);
      }
    }
  };
  const settingsWorker = async () => {
    for (let i = 0; !killed; i++) {
      const url = `https://r${round}-${i}.example`;
      if (ack.settings !== undefined) ack.settings.inFlight = url;
      else ack.settings = { acked: "", inFlight: url };
      try {
        const r = await requestJson(`${base}/v1/admin/settings`, {
          method: "PUT",
          token: session,
          headers: { "if-match": `"${settingsRevision}"` },
          body: { public_base_url: url, access_log_retention_days: String(10 + (i % 50)) },
        });
        assert.equal(r.status, 200, r.text);
        settingsRevision = r.body.revision;
        ack.settings = { acked: url };
        ack.counts.writes++;
      } catch (err) {
        return ended(err);
      }
    }
  };
  const tokenWorker = async () => {
    for (let i = 0; !killed; i++) {
      try {
        if (i % 2 === 0) {
          const r = await requestJson(`${base}/v1/admin/api-tokens`, {
            token: session,
            body: { name: `r${round}-${i}`, scopes: ["read"] },
          });
          assert.equal(r.status, 201, r.text);
          ack.apiTokens.set(r.body.credential.id, r.body.token);
        } else {
          const r = await requestJson(`${base}/v1/admin/access-tokens`, {
            token: session,
            body: { name: `r${round}-${i}` },
          });
          assert.equal(r.status, 201, r.text);
          ack.playbackKeys.add(r.body.id);
        }
        ack.counts.writes++;
      } catch (err) {
        return ended(err);
      }
    }
  };
  const playWorker = async (w: number) => {
    for (let i = 0; !killed; i++) {
      try {
        if (w === 0 && i % 6 === 5) {
          // A listing writes the access queue first: what it shows is on disk.
          const r = await requestJson(`${base}/v1/admin/access-logs?limit=1000`, {
            token: session,
          });
          assert.equal(r.status, 200, r.text);
          for (const rec of r.body.access_logs) ack.accessRecords.add(Number(rec.id));
          continue;
        }
        const res = await fetch(`${base}/p/${key.body.token}/playlist.m3u`);
        await res.arrayBuffer();
        assert.equal(res.status, 200);
        ack.counts.plays++;
      } catch (err) {
        return ended(err);
      }
    }
  };
  const workers = [
    ...[0, 1, 2].map(channelWorker),
    settingsWorker(),
    tokenWorker(),
    ...[0, 1, 2].map(playWorker),
  ];
  const burst = Promise.all(workers);
  burst.catch(() => {}); // awaited below; a failure must not surface as unhandled meanwhile
  await Promise.race([new Promise((r) => setTimeout(r, burstMs)), burst]);
  killed = true;
  gw.proc.kill("SIGKILL");
  await burst;
  await waitExit(gw);
  assert.equal(gw.proc.signalCode, "SIGKILL");
  ack.counts.kills++;

  const check = integrityCheck(gw.dataDir);
  assert.equal(check.result, "ok", `round ${round}: integrity_check`);
  const lost = [...ack.accessRecords].filter((id) => !check.accessIds.has(id));
  assert.deepEqual(lost, [], `round ${round}: access records shown by a listing are gone`);
}

/** Starts once more after the last round and checks everything; stops gracefully. */
export async function finalCheck(dir: string, ack: Acknowledged): Promise<void> {
  const gw = await startGateway("full", CONFIG, { dir, timeoutMs: 120_000 });
  try {
    await verifyAcknowledged(gw.url, await login(gw.url, "admin", ADMIN_PASSWORD), ack);
  } finally {
    await gw.stop();
  }
  assert.equal(integrityCheck(gw.dataDir).result, "ok");
}
