import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { tempDir } from "../harness/gateway-process.js";
import { repoRoot } from "../harness/paths.js";
import { runBinary, snapshotTree } from "../harness/run-binary.js";

/** Every variable the one environment module reads: `--help` must name each. */
const envVariables = [
  ...new Set(
    [
      ...readFileSync(join(repoRoot, "packages/core/src/config/environment.ts"), "utf8").matchAll(
        /env\.(SVC_[A-Z_]+)/g,
      ),
    ].map((m) => m[1]!),
  ),
];
const version = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version as string;

for (const build of ["lite", "full"] as const) {
  describe(`${build}: command line`, () => {
    // A fresh, empty working directory (and HOME) per binary: whatever appears in
    // it was written by a command that must write nothing.
    const cwd = tempDir(`svc-cli-${build}-`);
    after(() => rmSync(cwd, { recursive: true, force: true }));
    const run = (args: string[], env: Record<string, string> = {}) =>
      runBinary(build, args, { cwd, env });
    const usage = new RegExp(
      `^usage: gateway-${build} \\[--config FILE\\] \\[--check-config\\]`,
      "m",
    );

    it("--help and -h print usage, every flag and environment variable, exit 0", async () => {
      for (const flag of ["--help", "-h"]) {
        const r = await run([flag]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, usage);
        for (const f of ["--config FILE", "--check-config", "--help", "--version", "hash-password"])
          assert.ok(r.stdout.includes(f), `help lacks ${f}`);
        assert.ok(envVariables.length >= 6, JSON.stringify(envVariables));
        for (const v of envVariables) assert.ok(r.stdout.includes(v), `help lacks ${v}`);
        assert.equal(r.stderr, "");
      }
    });

    it("--version and -V print version and commit, exit 0", async () => {
      const info = JSON.parse(
        readFileSync(join(repoRoot, `apps/gateway-${build}/dist/build-info.json`), "utf8"),
      );
      for (const flag of ["--version", "-V"]) {
        const r = await run([flag]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, `svc-gateway ${build} ${version} (commit ${info.commit})\n`);
        assert.match(info.commit, /^([0-9a-f]{12}|unknown)$/);
      }
    });

    it("--help wins over --config and --check-config, --version over --config", async () => {
      const h = await run(["--config", "nope.yaml", "--check-config", "--help"]);
      assert.equal(h.code, 0);
      assert.match(h.stdout, usage);
      const v = await run(["--config", "nope.yaml", "--version"]);
      assert.equal(v.code, 0);
      assert.match(v.stdout, /^svc-gateway /);
    });

    const usageErrors: [string, string[], RegExp][] = [
      ["an unknown flag", ["--bogus"], /--bogus/],
      ["an unknown short flag", ["-x"], /-x/],
      ["a stray argument", ["start"], /unknown command "start"/],
      ["a stray argument next to --help", ["--help", "extra"], /unknown command "extra"/],
      ["--config without its file", ["--config"], /--config/],
      ["--config with an empty name", ["--config="], /--config needs a file name/],
      ["a value on a boolean flag", ["--check-config=yes"], /check-config/],
      ["hash-password with an argument", ["hash-password", "extra"], /takes no argument/],
      ["hash-password with --config", ["hash-password", "--config", "x.yaml"], /takes no option/],
    ];
    for (const [name, args, message] of usageErrors) {
      it(`${name} exits 2 with the usage line`, async () => {
        const r = await run(args);
        assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
        assert.match(r.stderr, message);
        assert.match(r.stderr, usage);
        assert.equal(r.stdout, "");
      });
    }

    it("writes nothing: the working directory and HOME stay empty", () => {
      assert.deepEqual(snapshotTree(cwd), []);
    });
  });
}

describe("full: no config and no SVC_CONFIG", () => {
  it("--version, --help and --check-config never write ./data/gateway.yaml", async () => {
    const cwd = tempDir("svc-cli-default-");
    try {
      for (const args of [["--version"], ["--help"], ["-V"]]) {
        const r = await runBinary("full", args, { cwd });
        assert.equal(r.code, 0, r.stderr);
        assert.doesNotMatch(r.stdout, /listening on|password: /);
      }
      const check = await runBinary("full", ["--check-config"], { cwd });
      assert.equal(check.code, 2);
      assert.equal(
        check.stderr,
        `cannot read config file ${join(cwd, "data", "gateway.yaml")} (ENOENT)\n`,
      );
      assert.deepEqual(snapshotTree(cwd), [], "nothing created, no ./data");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("lite without a config says how to give one and exits 2", async () => {
    const cwd = tempDir("svc-cli-noconf-");
    try {
      const r = await runBinary("lite", [], { cwd });
      assert.equal(r.code, 2);
      assert.match(
        r.stderr,
        /^no config file: pass --config FILE or set SVC_CONFIG\nusage: gateway-lite/,
      );
      const c = await runBinary("lite", ["--check-config"], { cwd });
      assert.equal(c.code, 2);
      assert.equal(c.stderr, "no config file: pass --config FILE or set SVC_CONFIG\n");
      assert.deepEqual(snapshotTree(cwd), []);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
