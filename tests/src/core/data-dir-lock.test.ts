import assert from "node:assert/strict";
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type Build,
  type GatewayProcess,
  runExpectingExit,
  startGateway,
  tempDir,
} from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";
import { authSection, hashFor } from "../harness/users.js";

const config = { auth: authSection(), channels: [] };

/** Starts a second gateway on `dir` and resolves with its exit code and stderr. */
async function secondStart(build: Build, dir: string): Promise<{ code: number; stderr: string }> {
  try {
    const gw = await startGateway(build, config, { dir, timeoutMs: 30_000 });
    await gw.stop();
    return { code: 0, stderr: "" };
  } catch (err) {
    const m = /gateway exited with (\d+):\n([\s\S]*)$/.exec((err as Error).message);
    assert.ok(m !== null, (err as Error).message);
    return { code: Number(m[1]), stderr: m[2]! };
  }
}

for (const build of ["full", "lite"] as Build[]) {
  describe(`${build}: one gateway per data_dir (issue 12 items 8 and 10)`, () => {
    it("a second gateway on the same data_dir refuses to start, naming the holder", async () => {
      const dir = tempDir(`svc-lock-${build}-`);
      let first: GatewayProcess | undefined;
      try {
        first = await startGateway(build, config, { dir });
        const second = await secondStart(build, dir);
        assert.equal(second.code, 2);
        assert.match(
          second.stderr,
          new RegExp(
            `^server\\.data_dir: .+ is in use by another gateway \\(pid ${first.proc.pid} since [^)]+\\); each gateway needs its own data_dir$`,
            "m",
          ),
        );
        assert.equal(
          (await requestJson(`${first.url}/healthz`)).status,
          200,
          "the first keeps running",
        );
      } finally {
        await first?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("a SIGKILLed holder leaves no stale lock: the next start succeeds at once", async () => {
      const dir = tempDir(`svc-lock-kill-${build}-`);
      try {
        const first = await startGateway(build, config, { dir });
        first.proc.kill("SIGKILL");
        await new Promise((resolve) => first.proc.once("exit", resolve));
        const next = await startGateway(build, config, { dir });
        assert.equal((await requestJson(`${next.url}/healthz`)).status, 200);
        assert.equal(await next.stop(), 0);
        // A clean stop releases it too.
        const again = await startGateway(build, config, { dir });
        assert.equal(await again.stop(), 0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("tightens an existing data_dir to 0700", async () => {
      const dir = tempDir(`svc-mode-${build}-`);
      const data = join(dir, "data");
      let gw: GatewayProcess | undefined;
      try {
        mkdirSync(data);
        chmodSync(data, 0o755);
        gw = await startGateway(build, config, { dir });
        assert.equal(statSync(data).mode & 0o777, 0o700);
      } finally {
        await gw?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("refuses a security.signing_key shorter than 32 bytes (exit 2, key path named)", async () => {
      const user = `auth:\n  users:\n    - {username: admin, password_hash: "${hashFor("x-password")}", role: admin}\n`;
      const short = await runExpectingExit(
        build,
        `server: {listen: "127.0.0.1:0", data_dir: "./data"}\nsecurity: {signing_key: "too-short-key"}\n${user}`,
      );
      assert.equal(short.code, 2);
      assert.match(short.stderr, /^security\.signing_key: must be at least 32 bytes/m);
      assert.equal(short.stdout, "", "nothing started");
      const dir = tempDir(`svc-key-${build}-`);
      try {
        const ok = await startGateway(
          build,
          { ...config, security: { signing_key: "k".repeat(32) } },
          { dir },
        );
        assert.equal(await ok.stop(), 0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    if (build === "full")
      it("refuses a generated signing.key that was cut short (exit 2, no endless retry)", async () => {
        const dir = tempDir("svc-short-key-");
        try {
          mkdirSync(join(dir, "data", "auth"), { recursive: true, mode: 0o700 });
          writeFileSync(join(dir, "data", "auth", "signing.key"), "short\n", { mode: 0o600 });
          const { code, stderr } = await secondStart(build, dir);
          assert.equal(code, 2);
          assert.match(stderr, /^security\.signing_key: \S+signing\.key holds fewer than 32/m);
          assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
  });
}
