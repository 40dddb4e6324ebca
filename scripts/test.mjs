// `npm test`: install, build (which type-checks every package), lint, then every
// test suite: unit tests beside the code and the black-box suites in tests/.
// The last line is the plain summary CI reads: `N passed, N failed`.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { installAndBuild, pnpm, root, run } from "./bootstrap.mjs";

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function check(name, status) {
  if (status === 0) passed += 1;
  else {
    failed += 1;
    failures.push(name);
  }
  return status === 0;
}

function summary() {
  if (failures.length > 0) process.stdout.write(`failed checks: ${failures.join(", ")}\n`);
  process.stdout.write(
    `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`,
  );
  process.exit(failed === 0 ? 0 : 1);
}

if (!check("install and build (type-check)", installAndBuild())) summary();
check("lint (biome)", pnpm(["exec", "biome", "check", "--diagnostic-level=error", "."]));
// Issue 31: no folder import loop beyond tooling/import-loops-allowed.json, which only shrinks.
check(
  "import loops (scripts/check-import-loops.mjs)",
  run(process.execPath, [join(root, "scripts", "check-import-loops.mjs")]),
);

/** Compiled test files: `*.test.js` under each package's and the tests suite's dist/. */
function testFiles() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".test.js")) out.push(path);
    }
  };
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, group))) {
      const dist = join(root, group, name, "dist");
      try {
        walk(dist);
      } catch {
        // a package without a build has no tests
      }
    }
  }
  walk(join(root, "tests", "dist"));
  return out.sort();
}

const files = testFiles().map((f) => relative(root, f));
const filter = process.env.TEST_FILTER;
const selected = filter ? files.filter((f) => f.includes(filter)) : files;

/**
 * One `node --test` run over `paths`, its counts added to the summary; `name`
 * labels the pass in the output and in the failed checks, `extraEnv` is added
 * to the environment of its test processes.
 */
/**
 * Test files run at once in each pass. Most suites wait on media in real time (sources,
 * players, failovers), not on the CPU; SVC_TEST_CONCURRENCY overrides it.
 */
const CONCURRENCY = Number(process.env.SVC_TEST_CONCURRENCY) || 3;

function testPass(name, paths, extraEnv) {
  process.stdout.write(
    `==> node --test${name === "" ? "" : `, ${name}`} (${paths.length} files)\n`,
  );
  const label = name === "" ? "" : ` (${name})`;
  const scratch = mkdtempSync(join(tmpdir(), "svc-test-"));
  const countFile = join(scratch, "count.json");
  const status = run(
    process.execPath,
    [
      "--test",
      `--test-concurrency=${CONCURRENCY}`,
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      "--test-reporter=./scripts/count-reporter.mjs",
      `--test-reporter-destination=${countFile}`,
      ...paths,
    ],
    extraEnv === undefined ? {} : { env: { ...process.env, ...extraEnv } },
  );
  try {
    const counts = JSON.parse(readFileSync(countFile, "utf8").trim().split("\n").pop());
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped;
    if (counts.failed > 0) failures.push(`${counts.failed} test(s)${label}`);
    if (status !== 0 && counts.failed === 0) check(`node --test exit status${label}`, status);
  } catch {
    check(`node --test (no result)${label}`, status === 0 ? 1 : status);
  }
  rmSync(scratch, { recursive: true, force: true });
}

// An empty selection must not reach `node --test`: given no paths it runs every test
// file it finds under the working directory, the whole suite.
if (selected.length === 0) {
  process.stdout.write(`==> no compiled test file matches TEST_FILTER=${filter}\n`);
  check(`TEST_FILTER=${filter} selects no test file`, 1);
  summary();
}
testPass("", selected);

// The PostgreSQL pass (issue 15): the black-box suites of the full binary once more,
// each gateway on a database of a private PostgreSQL server the harness starts
// (tests/src/harness/storage-mode.ts): the admin API, tokens, keys, settings,
// durability and M3U (full), sources, refresh, matching and epg.xml (guide), egress
// routing and its document (egress), and the hostile-input suites. On whenever the
// server binaries exist; SVC_TEST_PG_PASS=0 turns it off.
const PG_SUITES = /^tests\/dist\/(full|guide|egress|hostile)\/[^/]+\.test\.js$/;
const pgServer = (() => {
  try {
    return readdirSync("/usr/lib/postgresql").some((v) =>
      statSync(join("/usr/lib/postgresql", v, "bin", "postgres"), { throwIfNoEntry: false }),
    );
  } catch {
    return false;
  }
})();
const pgSelected = selected.filter((f) => PG_SUITES.test(f.split(sep).join("/")));
if (process.env.SVC_TEST_PG_PASS === "0")
  process.stdout.write("==> PostgreSQL pass: off (SVC_TEST_PG_PASS=0)\n");
else if (!pgServer)
  process.stdout.write(
    "==> PostgreSQL pass: skipped, no server binaries (/usr/lib/postgresql/*/bin/postgres)\n",
  );
else if (pgSelected.length === 0)
  process.stdout.write(
    "==> PostgreSQL pass: no suite of tests/dist/{full,guide,egress,hostile} selected\n",
  );
else testPass("PostgreSQL pass", pgSelected, { SVC_TEST_STORAGE: "postgres" });

// The workers pass (issue 36 item 2): the black-box suites of the full binary once more,
// each gateway started as `server.workers: 2` (a primary and two worker processes on one
// port and one SQLite file; the harness reads SVC_TEST_WORKERS, tests/src/harness/
// gateway-process.ts). SQLite only: `workers` > 1 with `database_url` is refused.
// SVC_TEST_WORKERS_PASS=0 turns it off.
const WORKERS_SUITES = /^tests\/dist\/full\/[^/]+\.test\.js$/;
const workersSelected = selected.filter((f) => WORKERS_SUITES.test(f.split(sep).join("/")));
if (process.env.SVC_TEST_WORKERS_PASS === "0")
  process.stdout.write("==> workers pass: off (SVC_TEST_WORKERS_PASS=0)\n");
else if (workersSelected.length === 0)
  process.stdout.write("==> workers pass: no suite of tests/dist/full selected\n");
else testPass("workers pass, server.workers: 2", workersSelected, { SVC_TEST_WORKERS: "2" });
summary();
