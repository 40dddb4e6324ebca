import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { binaryPath, tempDir } from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";

/** Runs the full binary with no config in `cwd` until it prints the console line, then stops it. */
async function runDefault(cwd: string): Promise<string> {
  const proc = spawn(process.execPath, [binaryPath("full")], {
    cwd,
    env: { PATH: process.env.PATH ?? "", SVC_LOG_LEVEL: "warn" },
  });
  let out = "";
  proc.stdout.setEncoding("utf8");
  const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no console line:\n${out}`)), 60_000);
    proc.stdout.on("data", (d: string) => {
      out += d;
      if (/console/.test(out) && /listening on/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once("exit", () => reject(new Error(`exited early:\n${out}`)));
  });
  const url = /listening on (\S+)/.exec(out)![1]!;
  const health = await requestJson(`${url}/healthz`);
  assert.equal(health.status, 200);
  proc.kill("SIGTERM");
  assert.equal(await exited, 0);
  return out;
}

describe("npm start's embedded default (full binary without --config)", () => {
  it("writes data/gateway.yaml and prints the admin password once, then reuses it", async () => {
    const cwd = tempDir("svc-first-run-");
    try {
      const first = await runDefault(cwd);
      assert.match(first, /listening on http:\/\/127\.0\.0\.1:8080/);
      assert.match(first, /console: +http:\/\/127\.0\.0\.1:8080\/admin/);
      const password = /password: (\S+)/.exec(first)?.[1];
      assert.ok(password !== undefined && password.length >= 20, first);
      const configPath = join(cwd, "data", "gateway.yaml");
      const config = readFileSync(configPath, "utf8");
      assert.match(config, /username: admin/);
      assert.doesNotMatch(config, new RegExp(password!), "the password itself is not stored");
      assert.equal(statSync(configPath).mode & 0o777, 0o600);

      const second = await runDefault(cwd);
      assert.doesNotMatch(second, /password:/);
      assert.equal(readFileSync(configPath, "utf8"), config, "the config file is never rewritten");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
