// The built full gateway for the benches that drive its admin API (m3u-catalog.mjs,
// m3u-source-sync.mjs): a temporary data dir, one admin user, the process on 127.0.0.1:0,
// logged in. Loopback only.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bcrypt = createRequire(join(root, "packages", "core", "package.json"))("bcrypt");

/**
 * Starts the full gateway with `config` over the bench's admin user (its `server` keys added
 * to the bench's); `nodeArgs` go before the binary (`--cpu-prof`). `stop()` ends it and, unless `keep`, deletes its dir.
 */
export async function startFullGateway({ config = {}, nodeArgs = [], keep = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-full-"));
  const password = "bench-password";
  writeFileSync(
    join(dir, "gateway.yaml"),
    JSON.stringify({
      auth: {
        users: [{ username: "admin", password_hash: bcrypt.hashSync(password, 4), role: "admin" }],
      },
      ...config,
      // `config.server` adds to the bench's own (`workers`), never drops its data dir.
      server: { listen: "127.0.0.1:0", data_dir: join(dir, "data"), ...config.server },
    }),
  );
  const proc = spawn(
    process.execPath,
    [
      ...nodeArgs,
      join(root, "apps", "gateway-full", "dist", "main.js"),
      "--config",
      join(dir, "gateway.yaml"),
    ],
    {
      env: { PATH: process.env.PATH ?? "", SVC_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  const base = await new Promise((resolve, reject) => {
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once("exit", (code) => reject(new Error(`gateway exited ${code}`)));
  });
  const login = await (
    await fetch(`${base}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password }),
    })
  ).json();
  return {
    proc,
    base,
    dir,
    /** Headers of an admin JSON request. */
    auth: { authorization: `Bearer ${login.token}`, "content-type": "application/json" },
    async stop() {
      proc.kill("SIGTERM");
      await new Promise((r) => proc.once("exit", r));
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}
