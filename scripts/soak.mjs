// `npm run soak` (issue 14 items 3 and 4; never part of `npm test`): builds, then
// 1. the crash loop with 20 rounds (tests/src/full/crash-loop.test.ts, CRASH_ROUNDS=20),
// 2. the fault and load soak (tests/src/soak/soak-run.ts): arguments after `--` go to it,
//    e.g. `npm run soak -- --minutes 2 --viewers 200`; default 10 minutes, 1,000 viewers.
// Loopback only. Each step runs under a hard timeout; the exit status is 0 only if both pass.
// `--skip-crash` / `--skip-load` run one half.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { installAndBuild, root } from "./bootstrap.mjs";

const args = process.argv.slice(2);
const skipCrash = args.includes("--skip-crash");
const skipLoad = args.includes("--skip-load");
const soakArgs = args.filter((a) => a !== "--skip-crash" && a !== "--skip-load");
const minutesAt = soakArgs.indexOf("--minutes");
const minutes = minutesAt === -1 ? 10 : Number(soakArgs[minutesAt + 1]);

if (installAndBuild() !== 0) process.exit(1);

function step(name, command, argv, env, timeoutMs) {
  process.stdout.write(`==> ${name}\n`);
  const r = spawnSync(command, argv, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ...env },
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  if (r.error !== undefined) process.stdout.write(`${name}: ${r.error.message}\n`);
  return r.status === 0;
}

let ok = true;
if (!skipCrash)
  ok =
    step(
      "crash loop (20 rounds of SIGKILL)",
      process.execPath,
      ["--test", "--test-reporter=spec", join("tests", "dist", "full", "crash-loop.test.js")],
      { CRASH_ROUNDS: "20" },
      20 * 60_000,
    ) && ok;
if (!skipLoad)
  ok =
    step(
      "fault and load soak",
      process.execPath,
      [join("tests", "dist", "soak", "soak-run.js"), ...soakArgs],
      {},
      (minutes + 8) * 60_000,
    ) && ok;
process.stdout.write(`soak: ${ok ? "PASS" : "FAIL"}\n`);
process.exit(ok ? 0 : 1);
