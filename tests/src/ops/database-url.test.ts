import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { stringify } from "yaml";
import { freePort } from "../harness/free-port.js";
import { binaryPath, startGateway, tempDir } from "../harness/gateway-process.js";
import { ed25519Pair } from "../harness/keys.js";
import { createDatabase, POSTGRES_MISSING } from "../harness/postgres-server.js";
import { authSection } from "../harness/users.js";

/** Cluster mode's shared identity (operator contract "Cluster mode"), so only the database is at stake. */
const pair = ed25519Pair();
const clusterConfig = (server: Record<string, unknown> = {}) => ({
  server: { listen: "127.0.0.1:0", ...server },
  auth: authSection([], { token_private_key: pair.privatePem, token_public_key: pair.publicPem }),
  security: { signing_key: "k".repeat(40) },
});

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Start {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The process's command line as the system shows it (`/proc/PID/cmdline`). */
  readonly cmdline: string;
  readonly ms: number;
}

/**
 * Starts the full binary on `config` (data dir in a temp dir) with `env`, at
 * log level debug so every line a start can print is printed; resolves when
 * it exits, or after it printed `listening on` (then it is stopped).
 */
async function start(
  build: "full" | "lite",
  config: Record<string, unknown>,
  env: Record<string, string>,
): Promise<Start> {
  const dir = tempDir("svc-dburl-");
  dirs.push(dir);
  const configPath = join(dir, "gateway.yaml");
  const server = { data_dir: join(dir, "data"), ...(config.server as object) };
  writeFileSync(configPath, stringify({ ...config, server }));
  const t0 = Date.now();
  const proc = spawn(process.execPath, [binaryPath(build), "--config", configPath], {
    env: { PATH: process.env.PATH ?? "", SVC_LOG_LEVEL: "debug", SVC_LOG_FORMAT: "json", ...env },
  });
  let cmdline = "";
  proc.once("spawn", () => {
    try {
      cmdline = readFileSync(`/proc/${proc.pid}/cmdline`, "utf8").split("\0").join(" ");
    } catch {
      // Exited already: assertNoSecret fails on the empty command line.
    }
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    if (/^listening on /m.test(stdout)) proc.kill("SIGTERM");
  });
  proc.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((r) => proc.once("exit", (c) => r(c)));
  clearTimeout(timer);
  return { code, stdout, stderr, cmdline, ms: Date.now() - t0 };
}

const assertNoSecret = (r: Start, secret: string) => {
  assert.ok(!r.stdout.includes(secret), `password on stdout:\n${r.stdout}`);
  assert.ok(!r.stderr.includes(secret), `password on stderr:\n${r.stderr}`);
  assert.ok(r.cmdline.includes(binaryPath("full")) || r.cmdline.includes(binaryPath("lite")));
  assert.ok(!r.cmdline.includes(secret), `password in argv: ${r.cmdline}`);
};

describe("server.database_url: config", () => {
  it("not a PostgreSQL URL, in the file or SVC_DATABASE_URL: exit 2, one line naming the key, the value not repeated", async () => {
    const fromFile = await start(
      "full",
      clusterConfig({ database_url: "mysql://svc:pw-in-file-1f2e@127.0.0.1/svc" }),
      {},
    );
    const fromEnv = await start("full", clusterConfig(), {
      SVC_DATABASE_URL: "svc:pw-in-env-3c4d@127.0.0.1:5432/svc",
    });
    for (const [r, secret] of [
      [fromFile, "pw-in-file-1f2e"],
      [fromEnv, "pw-in-env-3c4d"],
    ] as const) {
      assert.equal(r.code, 2, r.stderr);
      assert.equal(
        r.stderr,
        "server.database_url: must be a postgres:// or postgresql:// URL (postgres://user:password@host:port/database)\n",
      );
      assertNoSecret(r, secret);
    }
  });

  it("an unreachable server (127.0.0.1, closed port): exit 2 within seconds, the server named without its password", async () => {
    const port = await freePort();
    const r = await start("full", clusterConfig(), {
      SVC_DATABASE_URL: `postgres://svc:pw-unreachable-5e6f@127.0.0.1:${port}/svc`,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      r.stderr,
      `server.database_url: state database: cannot connect to PostgreSQL at postgres://svc@127.0.0.1:${port}/svc: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
    assert.ok(r.ms < 10_000, `took ${r.ms} ms`);
    assertNoSecret(r, "pw-unreachable-5e6f");
  });

  it("SVC_DATABASE_URL overrides the file's server.database_url", async () => {
    const [filePort, envPort] = [await freePort(), await freePort()];
    const r = await start(
      "full",
      clusterConfig({ database_url: `postgres://file-user@127.0.0.1:${filePort}/svc` }),
      { SVC_DATABASE_URL: `postgres://env-user:pw-env-7a8b@127.0.0.1:${envPort}/svc` },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`at postgres://env-user@127\\.0\\.0\\.1:${envPort}/svc: `));
    assert.ok(!r.stderr.includes("file-user"));
    assertNoSecret(r, "pw-env-7a8b");
  });

  it("the lite build ignores it: starts without a database", async () => {
    const port = await freePort();
    const gw = await startGateway(
      "lite",
      { auth: authSection(), server: { database_url: `postgres://svc@127.0.0.1:${port}/svc` } },
      {
        env: {
          SVC_LOG_LEVEL: "info",
          SVC_DATABASE_URL: `postgres://svc:pw-lite-9c0d@127.0.0.1:${port}/svc`,
        },
      },
    );
    try {
      assert.match(gw.stdout(), /state database: none \(lite build/);
      assert.ok(!gw.stdout().includes("pw-lite-9c0d") && !gw.stderr().includes("pw-lite-9c0d"));
    } finally {
      assert.equal(await gw.stop(), 0);
    }
  });
});

describe("server.database_url: a real server", { skip: POSTGRES_MISSING }, () => {
  it("a refused login: exit 2 with the server's reason; the password in neither stdout, stderr nor argv", async () => {
    const url = new URL((await createDatabase())!);
    url.password = "wrong-pw-1b2c3d";
    const r = await start("full", clusterConfig(), { SVC_DATABASE_URL: url.toString() });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^server\.database_url: state database: cannot connect to PostgreSQL at postgres:\/\/svc_test_\d+@127\.0\.0\.1:\d+\/svc_test_\d+: password authentication failed for user "svc_test_\d+"\n$/,
    );
    assertNoSecret(r, "wrong-pw-1b2c3d");
  });

  it("a start on a fresh database: migrations applied, the summary names the database without its password, which no output carries", async () => {
    const url = new URL((await createDatabase())!);
    const r = await start("full", clusterConfig(), { SVC_DATABASE_URL: url.toString() });
    assert.equal(r.code, 0, r.stderr);
    const msgs = r.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l).msg as string);
    assert.ok(
      msgs.some((m) => /^state database: \d+ migration\(s\) applied$/.test(m)),
      msgs.join("\n"),
    );
    assert.ok(
      msgs.includes(`state database: postgres://${url.username}@${url.host}${url.pathname}`),
      msgs.join("\n"),
    );
    assertNoSecret(r, url.password);
  });
});
