import { execFile, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { PgStateDb } from "../db/pg-client.js";
import * as pgSchema from "../db/schema-pg/index.js";

/**
 * Test support for the repository tests of the PostgreSQL storage: one
 * private PostgreSQL server (Debian's binaries) in a temp dir, on a free
 * loopback port, with the state schema created from `db/schema-pg` in each
 * fresh database. Never part of the gateway (nothing outside tests imports it).
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

/** Why the PostgreSQL cases skip here, or false when they can run. */
export const POSTGRES_ABSENT: string | false =
  binDir() === undefined
    ? `no PostgreSQL server binaries under ${SERVER_ROOT}/*/bin: install the postgresql package`
    : false;

export interface PrivatePostgres {
  /** A fresh database holding the state schema, and its pool. */
  database(): Promise<{ db: PgStateDb; close(): Promise<void> }>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The state schema as drizzle-kit would write it for an empty database. */
async function schemaStatements(): Promise<string[]> {
  const kit = await import("drizzle-kit/api");
  return kit.generateMigration(kit.generateDrizzleJson({}), kit.generateDrizzleJson(pgSchema));
}

/** Starts the server (initdb as `postgres` when running as root). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  if (bin === undefined) throw new Error(String(POSTGRES_ABSENT));
  const dir = mkdtempSync(join(tmpdir(), "svc-repo-pg-"));
  const root = process.getuid?.() === 0;
  const as = (cmd: string, args: string[]): [string, string[]] =>
    root ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  if (root) {
    const id = (flag: string) =>
      Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(dir, id("-u"), id("-g"));
  }
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
  const [cmd, args] = as(join(bin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    dir,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off",
  ]);
  const server = spawn(cmd, args, { stdio: "ignore" });
  server.unref();
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  // runuser does not pass signals on: pg_ctl stops the server itself, also when
  // the test process ends without calling stop().
  const pgCtlStop = as(join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "stop"]);
  const cleanup = () => {
    spawnSync(...pgCtlStop, { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", cleanup);
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  const admin = new pg.Pool({ connectionString: url("postgres"), max: 1 });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await admin.query("SELECT 1");
      break;
    } catch (err) {
      if (Date.now() > deadline || server.exitCode !== null) {
        cleanup();
        throw new Error(`PostgreSQL did not start on 127.0.0.1:${port}: ${String(err)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const statements = await schemaStatements();
  let count = 0;
  return {
    async database() {
      count += 1;
      const name = `repo_test_${count}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const pool = new pg.Pool({ connectionString: url(name), max: 4 });
      const db = drizzle(pool, { schema: pgSchema }) as PgStateDb;
      for (const s of statements) await db.execute(sql.raw(s));
      return { db, close: () => pool.end() };
    },
    async stop() {
      await admin.end();
      process.off("exit", cleanup);
      await run(...pgCtlStop);
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
