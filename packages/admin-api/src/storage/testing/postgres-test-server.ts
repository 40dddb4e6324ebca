import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * A private PostgreSQL for the repository tests: `SVC_TEST_DATABASE_URL` when set (a
 * server where the test may create databases), else a server of Debian's packages
 * (`/usr/lib/postgresql/<n>/bin`) started in a temp dir on a free loopback port, as the
 * `postgres` user when the tests run as root (initdb refuses root). Each
 * {@link TestPostgres.createDatabase} is a fresh database; `stop()` drops them and
 * removes the server.
 */
export interface TestPostgres {
  /** A fresh empty database: its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

/** Why no server could be had, or the server. */
export type TestPostgresResult =
  | { readonly ok: true; readonly server: TestPostgres }
  | { readonly ok: false; readonly reason: string };

function serverBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function privateServer(bin: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "svc-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  // pg_ctl starts the server detached and waits for it (-w): no long-lived child here.
  const run = (tool: string, args: readonly string[]) => {
    const [cmd, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]]
      : [join(bin, tool), args];
    execFileSync(cmd, argv, { stdio: "ignore", timeout: 60_000 });
  };
  const port = await freePort();
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // A test process that ends without stop() (a failed hook) leaves no server behind.
  process.once("exit", stopNow);
  const stop = async () => stopNow();
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync"]);
    run("pg_ctl", [
      "-D",
      data,
      "-l",
      join(dir, "server.log"),
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "-w",
      "start",
    ]);
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
}

/** Starts (or reaches) the test server; `ok: false` names why the PostgreSQL cases skip. */
export async function startTestPostgres(
  env: Readonly<Record<string, string | undefined>>,
): Promise<TestPostgresResult> {
  let admin = env.SVC_TEST_DATABASE_URL;
  let stopServer = async () => {};
  if (admin === undefined || admin === "") {
    const bin = serverBinaries();
    if (bin === undefined)
      return {
        ok: false,
        reason: "no PostgreSQL server binaries in /usr/lib/postgresql and no SVC_TEST_DATABASE_URL",
      };
    const started = await privateServer(bin);
    admin = started.url;
    stopServer = started.stop;
  }
  const adminUrl = admin;
  const created: string[] = [];
  const withAdmin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    ok: true,
    server: {
      async createDatabase() {
        const name = `svc_test_${randomBytes(6).toString("hex")}`;
        await withAdmin(`CREATE DATABASE ${name}`);
        created.push(name);
        const url = new URL(adminUrl);
        url.pathname = `/${name}`;
        return url.toString();
      },
      async stop() {
        for (const name of created) await withAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await stopServer();
      },
    },
  };
}
