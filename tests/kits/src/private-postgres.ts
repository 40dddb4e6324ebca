import { execFile, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./free-port.js";

/**
 * Test support, the one private PostgreSQL server of every test that needs one
 * (the admin-api repository unit tests and the black-box suites in tests/, through
 * `@svc/test-kits/private-postgres`). One server per test process,
 * started on first use: initdb into a temp dir (as the `postgres` user when
 * running as root: initdb and postgres refuse root), listening only on
 * 127.0.0.1 (a free port) with its unix socket in that dir, password (SCRAM)
 * authentication over TCP so every URL carries a real password. Each
 * {@link createDatabase} makes a fresh database owned by a fresh role, as an
 * operator would (docs/deploy.md "PostgreSQL"); a schema only ever comes from
 * the committed migrations (`drizzle-pg/`, applied by the migrator the caller
 * passes), never from DDL written here, so the tests prove the migrations. The server stops and its dir is removed when the
 * test process exits, however it exits: a watchdog shell holds the other end of
 * a pipe from this process and shuts the server down when the pipe closes.
 * Never part of the gateway (nothing outside tests imports it).
 */

const run = promisify(execFile);

/** Where Debian's packages put the server; the highest version present wins. */
const SERVER_ROOT = "/usr/lib/postgresql";

/** The directory of `postgres` and `initdb`, or undefined when the server is not installed. */
export function postgresBinDir(): string | undefined {
  let versions: string[];
  try {
    versions = readdirSync(SERVER_ROOT);
  } catch {
    return undefined;
  }
  const usable = versions
    .filter((v) => existsSync(join(SERVER_ROOT, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return usable[0] === undefined ? undefined : join(SERVER_ROOT, usable[0], "bin");
}

/** Why PostgreSQL suites skip here, or false when they can run (for `{ skip }`). */
export const POSTGRES_MISSING: string | false =
  postgresBinDir() === undefined
    ? `no PostgreSQL server binaries (${SERVER_ROOT}/*/bin/postgres): install the postgresql package`
    : false;

interface RunningServer {
  readonly port: number;
  /** The superuser's pool (TCP, password); never keeps the test process alive. */
  readonly admin: pg.Pool;
}

let server: Promise<RunningServer> | undefined;
let databases = 0;

const superuserPassword = randomBytes(16).toString("hex");

/**
 * A fresh, empty database on this process's server (started on the first
 * call) owned by its own login role: `postgres://ROLE:PASSWORD@127.0.0.1:PORT/DB`,
 * for `openPostgresStorage` or a gateway, which apply the migrations themselves.
 * Resolves undefined when the server binaries are absent (the caller skips).
 */
export async function createDatabase(): Promise<string | undefined> {
  const bin = postgresBinDir();
  if (bin === undefined) return undefined;
  server ??= startServer(bin);
  const { port, admin } = await server;
  databases += 1;
  const name = `svc_test_${databases}`;
  // Hex: nothing to quote in the statement, nothing to escape in the URL.
  const password = randomBytes(16).toString("hex");
  await admin.query(`CREATE ROLE ${name} LOGIN PASSWORD '${password}'`);
  await admin.query(`CREATE DATABASE ${name} OWNER ${name}`);
  return `postgres://${name}:${password}@127.0.0.1:${port}/${name}`;
}

/** How a fresh database gets its schema and how the test holds it: the product's own pieces. */
export interface SchemaSetup<D> {
  /** Applies the committed migrations on `client`, as the gateway does at boot. */
  migrate(client: pg.PoolClient): Promise<unknown>;
  /** The test's handle on the pool, e.g. drizzle with the product's schema. */
  connect(pool: pg.Pool): D;
}

/** A fresh database with a schema, and one pool on it (one instance's handle). */
export interface MigratedDatabase<D> {
  /** The database's URL (its own role and password): for a second pool, a second instance. */
  readonly url: string;
  readonly pool: pg.Pool;
  /** {@link SchemaSetup.connect} on {@link pool}. */
  readonly db: D;
  /** Ends the pool (idempotent). */
  close(): Promise<void>;
}

/**
 * A fresh database ({@link createDatabase}) with `setup`'s migrations applied the
 * way the gateway applies them, and a pool on it that never keeps the test process
 * alive. Rejects when the server binaries are absent: a suite that calls it skips
 * with {@link POSTGRES_MISSING}.
 */
export async function createMigratedDatabase<D>(
  setup: SchemaSetup<D>,
  options: { readonly max?: number } = {},
): Promise<MigratedDatabase<D>> {
  const url = await createDatabase();
  if (url === undefined) throw new Error(String(POSTGRES_MISSING));
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 8, allowExitOnIdle: true });
  const client = await pool.connect();
  try {
    await setup.migrate(client);
  } finally {
    client.release();
  }
  let ended: Promise<void> | undefined;
  return {
    url,
    pool,
    db: setup.connect(pool),
    close() {
      ended ??= pool.end();
      return ended;
    },
  };
}

/** The server's superuser URL (for tests that look inside a database); undefined when absent. */
export async function superuserUrl(database: string): Promise<string | undefined> {
  if (server === undefined) return undefined;
  const { port } = await server;
  return `postgres://postgres:${superuserPassword}@127.0.0.1:${port}/${database}`;
}

async function startServer(bin: string): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), "svc-testpg-"));
  // initdb and postgres refuse to run as root: as root they run as `postgres`.
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  const asOwner = (cmd: string, args: string[]): [string, string[]] =>
    owner === undefined ? [cmd, args] : ["runuser", ["-u", "postgres", "--", cmd, ...args]];
  const pwfile = join(dir, "pwfile");
  writeFileSync(pwfile, `${superuserPassword}\n`, { mode: 0o600 });
  if (owner !== undefined) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(pwfile, owner.uid, owner.gid);
  }
  const data = join(dir, "data");
  try {
    await run(
      ...asOwner(join(bin, "initdb"), [
        "-D",
        data,
        "-U",
        "postgres",
        `--pwfile=${pwfile}`,
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
        "--no-instructions",
      ]),
    );
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`initdb failed: ${e.stderr ?? e.message}`);
  }
  const port = await freePort();
  // The watchdog: postgres in the background, then wait for EOF on stdin (this
  // process exited or closed the pipe), fast shutdown, remove the dir. Its
  // output goes to a file: a pipe to the test process would hold the run open.
  const script = [
    '"$0" -D "$1" -p "$2" -k "$3" -c listen_addresses=127.0.0.1 -c max_connections=300 \\',
    '  -c fsync=off -c synchronous_commit=off -c full_page_writes=off >"$3/server.log" 2>&1 &',
    "pid=$!",
    // A signal to the whole process group (timeout(1), a killed runner) stops the
    // server by itself; the shell outlives it to remove the dir once the pipe closes.
    "trap '' HUP INT TERM",
    "cat >/dev/null",
    'kill -INT "$pid" 2>/dev/null',
    'wait "$pid"',
    'rm -rf "$3"',
  ].join("\n");
  const [cmd, args] = asOwner("sh", ["-c", script, join(bin, "postgres"), data, String(port), dir]);
  const watchdog = spawn(cmd, args, { stdio: ["pipe", "ignore", "ignore"] });
  watchdog.unref();
  (watchdog.stdin as unknown as { unref(): void }).unref();
  const admin = new pg.Pool({
    connectionString: `postgres://postgres:${superuserPassword}@127.0.0.1:${port}/postgres`,
    max: 2,
    allowExitOnIdle: true,
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await admin.query("SELECT 1");
      break;
    } catch (err) {
      if (Date.now() > deadline || watchdog.exitCode !== null) {
        watchdog.stdin.end();
        let log = "";
        try {
          log = readFileSync(join(dir, "server.log"), "utf8");
        } catch {}
        throw new Error(`PostgreSQL did not start on 127.0.0.1:${port}: ${String(err)}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { port, admin };
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => {
    const r = spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
    if (r.status !== 0)
      throw new Error("running as root and there is no postgres user to run initdb");
    return Number(r.stdout.trim());
  };
  return { uid: id("-u"), gid: id("-g") };
}
