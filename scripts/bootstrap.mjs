// Install the workspace with the pinned pnpm and the frozen lockfile, then build
// it with turbo. Used by `npm start` and `npm test` so a fresh clone with only
// Node 20 needs nothing else. Corepack's signature check fails against the
// registry these machines reach, so pnpm comes through `npx --yes pnpm@<version>`.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const pnpmVersion = /^pnpm@(.+)$/.exec(pkg.packageManager)?.[1];

const quietEnv = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  npm_config_update_notifier: "false",
};

/** Runs a command in the repo root with inherited output; returns its exit status. */
export function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: root, stdio: "inherit", env: quietEnv, ...options });
  if (r.error) {
    process.stderr.write(`${command}: ${r.error.message}\n`);
    return 1;
  }
  return r.status ?? 1;
}

export function pnpm(args, options) {
  return run("npx", ["--yes", `pnpm@${pnpmVersion}`, ...args], options);
}

/** Install (frozen lockfile) and build every package; returns the first failing status or 0. */
export function installAndBuild({ log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  log(`==> pnpm ${pnpmVersion} install --frozen-lockfile`);
  const installed = pnpm(["install", "--frozen-lockfile", "--reporter=append-only"]);
  if (installed !== 0) return installed;
  log("==> turbo run build");
  return pnpm(["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exit(installAndBuild());
}
