import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import bcrypt from "bcrypt";
import { binaryPath, tempDir } from "../harness/gateway-process.js";
import { runBinary, snapshotTree } from "../harness/run-binary.js";

const BCRYPT_12 = /^\$2b\$12\$[./A-Za-z0-9]{53}$/;

/** True when any file under `dir` contains `needle`. */
function anyFileContains(dir: string, needle: string): boolean {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (anyFileContains(path, needle)) return true;
    } else if (readFileSync(path).includes(needle)) return true;
  }
  return false;
}

for (const build of ["lite", "full"] as const) {
  describe(`${build}: hash-password from standard input`, () => {
    const cwd = tempDir(`svc-hash-${build}-`);
    after(() => rmSync(cwd, { recursive: true, force: true }));

    it("prints one bcrypt hash (cost 12) of the first line, exit 0", async () => {
      const password = "correct horse battery";
      const r = await runBinary(build, ["hash-password"], { cwd, input: `${password}\nignored\n` });
      assert.equal(r.code, 0, r.stderr);
      const hash = r.stdout.trimEnd();
      assert.equal(r.stdout, `${hash}\n`, "stdout is the hash line only");
      assert.match(hash, BCRYPT_12);
      assert.ok(await bcrypt.compare(password, hash));
      assert.ok(!(await bcrypt.compare("ignored", hash)));
      assert.ok(!r.stdout.includes(password) && !r.stderr.includes(password));
    });

    it("takes a CR LF line end and a last line without end", async () => {
      for (const input of ["windows-line\r\n", "windows-line"]) {
        const r = await runBinary(build, ["hash-password"], { cwd, input });
        assert.equal(r.code, 0, r.stderr);
        assert.ok(await bcrypt.compare("windows-line", r.stdout.trim()), JSON.stringify(input));
      }
    });

    const refused: [string, string, RegExp][] = [
      ["an empty input", "", /no password on standard input/],
      ["a password under 8 bytes", "short\n", /8 to 72 bytes, got 5/],
      ["a password over 72 bytes", `${"x".repeat(73)}\n`, /8 to 72 bytes, got 73/],
    ];
    for (const [name, input, message] of refused) {
      it(`refuses ${name} with exit 2`, async () => {
        const r = await runBinary(build, ["hash-password"], { cwd, input });
        assert.equal(r.code, 2);
        assert.match(r.stderr, message);
        assert.equal(r.stdout, "");
      });
    }

    it("never takes the password as an argument or option", async () => {
      const secret = "argv-secret-123";
      for (const args of [
        ["hash-password", secret],
        ["hash-password", `--password=${secret}`],
        ["hash-password", "--password", secret],
      ]) {
        const r = await runBinary(build, args, { cwd, input: "" });
        assert.equal(r.code, 2, args.join(" "));
        assert.equal(r.stdout, "", "no hash printed");
        assert.match(r.stderr, /^usage: /m);
      }
    });

    it("writes nothing: no file anywhere under its working directory and HOME", () => {
      assert.deepEqual(snapshotTree(cwd), []);
      assert.equal(anyFileContains(cwd, "correct horse"), false);
    });
  });
}

/** util-linux `script` gives the binary a pseudo-terminal, as an operator's shell would. */
const hasScript = spawnSync("script", ["--version"]).status === 0;

describe("hash-password at a terminal", {
  skip: hasScript ? false : "util-linux script missing",
}, () => {
  it("prompts twice without echo and prints the hash", async () => {
    const cwd = tempDir("svc-hash-tty-");
    const password = "typed-at-a-tty-42";
    try {
      const proc = spawn(
        "script",
        [
          "-qfec",
          `${JSON.stringify(process.execPath)} ${binaryPath("lite")} hash-password`,
          "/dev/null",
        ],
        { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, TERM: "dumb" } },
      );
      let out = "";
      proc.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
      });
      const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
      const waitFor = (re: RegExp) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`no ${re} in ${JSON.stringify(out)}`)),
            20_000,
          );
          const poll = setInterval(() => {
            if (re.test(out)) {
              clearTimeout(timer);
              clearInterval(poll);
              resolve();
            }
          }, 20);
        });
      // Type only once the prompt is up: the terminal echoes what is typed before
      // the program turned echo off, and that echo is the terminal's, not ours.
      await waitFor(/Password: /);
      proc.stdin.write(`${password}\r`);
      await waitFor(/Repeat password: /);
      proc.stdin.write(`${password}\r`);
      await waitFor(/\$2b\$12\$[./A-Za-z0-9]{53}/);
      proc.stdin.end();
      assert.equal(await exited, 0);
      assert.ok(!out.includes(password), `the password was echoed: ${JSON.stringify(out)}`);
      const hash = /\$2b\$12\$[./A-Za-z0-9]{53}/.exec(out)![0];
      assert.ok(await bcrypt.compare(password, hash));
      assert.deepEqual(snapshotTree(cwd), []);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("refuses two different passwords with exit 2", async () => {
    const cwd = tempDir("svc-hash-tty2-");
    try {
      const proc = spawn(
        "script",
        [
          "-qfec",
          `${JSON.stringify(process.execPath)} ${binaryPath("full")} hash-password`,
          "/dev/null",
        ],
        { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, TERM: "dumb" } },
      );
      let out = "";
      proc.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
      });
      const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
      const until = async (re: RegExp) => {
        for (let i = 0; i < 1000 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 20));
        assert.match(out, re);
      };
      await until(/Password: /);
      proc.stdin.write("first-password-1\r");
      await until(/Repeat password: /);
      proc.stdin.write("other-password-2\r");
      await until(/differ/);
      proc.stdin.end();
      assert.equal(await exited, 2);
      assert.doesNotMatch(out, /\$2b\$/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
