import { execFile, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

/**
 * A private PostgreSQL server for the packaging-lease suites (issue 15 item 4), one per
 * test process: initdb into a temp dir, listening only on 127.0.0.1 (a free port), its
 * socket in that dir, stopped and removed when the test process exits (a watchdog shell
 * holds a pipe from this process). Each {@link createLeaseDatabase} is a fresh database.
 *
 * The `channel_leases` table is created here from its definition in
 * `packages/admin-api/src/db/schema-pg/index.ts` until the PostgreSQL migrations
 * (`drizzle-pg/`) carry it and `openPostgresStorage` can open the database instead.
 */

const run = promisify(execFile);
const SERVER_ROOT = "/usr/lib/postgresql";

function binDir(): string | undefined {
  let versions: string[];
  try {
    versions = readdirSync(SERVER_ROOT);
  } catch {
    return undefined;
  }
  const v = versions
    .filter((d) => existsSync(join(SERVER_ROOT, d, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a))[0];
  return v === undefined ? undefined : join(SERVER_ROOT, v, "bin");
}

/** Why the suites skip, or false when the server binaries are here. */
export const NO_POSTGRES: string | false =
  binDir() === undefined
    ? `no PostgreSQL server binaries (${SERVER_ROOT}/*/bin/postgres): install the postgresql package`
    : false;

const LEASE_TABLE = `CREATE TABLE channel_leases (
  channel_id text PRIMARY KEY NOT NULL,
  owner_id text NOT NULL,
  owner_url text NOT NULL,
  generation bigint NOT NULL,
  expires_at bigint NOT NULL,
  renewed_at bigint NOT NULL
)`;

let server: Promise<number> | undefined;
let count = 0;

/** A fresh database holding `channel_leases`, and a pool on it (closed by the caller). */
export async function createLeaseDatabase(): Promise<{ url: string; pool: pg.Pool }> {
  const bin = binDir();
  if (bin === undefined) throw new Error(String(NO_POSTGRES));
  server ??= start(bin);
  const port = await server;
  count += 1;
  const name = `lease_test_${count}`;
  const admin = new pg.Client({
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
  });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = `postgres://postgres@127.0.0.1:${port}/${name}`;
  const pool = new pg.Pool({ connectionString: url, max: 8, allowExitOnIdle: true });
  await pool.query(LEASE_TABLE);
  return { url, pool };
}

async function start(bin: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "svc-lease-pg-"));
  // initdb and postgres refuse to run as root: as root they run as `postgres`.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag: string) =>
      Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(dir, id("-u"), id("-g"));
  }
  const as = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  const data = join(dir, "data");
  await run(
    ...as(join(bin, "initdb"), [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]),
  );
  const port = await freePort();
  const script = [
    '"$0" -D "$1" -p "$2" -k "$3" -c listen_addresses=127.0.0.1 -c fsync=off \\',
    '  -c synchronous_commit=off -c full_page_writes=off >"$3/server.log" 2>&1 &',
    "pid=$!",
    "cat >/dev/null",
    'kill -INT "$pid" 2>/dev/null',
    'wait "$pid"',
    'rm -rf "$3"',
  ].join("\n");
  const [cmd, args] = as("sh", ["-c", script, join(bin, "postgres"), data, String(port), dir]);
  const watchdog = spawn(cmd, args, { stdio: ["pipe", "ignore", "ignore"] });
  watchdog.unref();
  (watchdog.stdin as unknown as { unref(): void }).unref();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const probe = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    });
    try {
      await probe.connect();
      await probe.end();
      return port;
    } catch (err) {
      await probe.end().catch(() => undefined);
      if (Date.now() > deadline || watchdog.exitCode !== null)
        throw new Error(`PostgreSQL did not start on 127.0.0.1:${port}: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() =>
        typeof a === "object" && a !== null ? resolve(a.port) : reject(new Error("no port")),
      );
    });
  });
}
