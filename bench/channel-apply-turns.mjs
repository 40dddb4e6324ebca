// The longest turn of the event loop during a large channel commit on the embedded SQLite
// (issue 30 item 1): N channels (default 165,000, what a 32 MiB M3U apply writes) committed
// in one transaction through the channel repository, while a 1 ms timer records the gaps
// between its ticks. A gap is a turn the loop could not take: encoding and writing batches,
// and (before the writer thread) the synchronous `COMMIT`. Prints the wall time of the
// commit, the longest gap, and how many gaps exceeded 20 and 50 ms.
//
//   npx pnpm@10.34.9 exec turbo run build
//   node bench/channel-apply-turns.mjs [--rows 165000] [--runs 3] [--admin-api DIR]
//
// `--admin-api DIR`: the `dist` of another build's packages/admin-api (A/B: a worktree of an
// older commit, built). Run it on a quiet machine with two cores free: the writer thread is
// meant to run beside the event loop, not on its core. Loopback only: nothing is contacted.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { storedChannel } from "../tests/kits/dist/channel.js";

const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1];
};
const ROWS = Number(arg("--rows", "165000"));
const RUNS = Number(arg("--runs", "3"));
const DIST = resolve(arg("--admin-api", "packages/admin-api/dist"));

const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { sqliteStorage } = await load("storage/storage.js");
const { createRepositories } = await load("storage/repositories.js");

/** Rows the size an M3U import writes: title, group, logo, epg ids, a source URL. */
function channels(n) {
  return Array.from({ length: n }, (_, i) =>
    storedChannel(`ch${i}-bench`, {
      title: `Channel ${i} HD`,
      group: `Group ${i % 50}`,
      logo_url: `http://127.0.0.1:9/logo/${i}.png`,
      epg_id: `ch${i}.bench`,
      epg_name: `Channel ${i}`,
      source_url: `http://127.0.0.1:9/live/${i}/index.m3u8`,
      user_agent: i % 10 === 0 ? "BenchPlayer/1.0" : "",
      guide_number: String(i + 1),
      sort_order: i,
    }),
  );
}

console.log(
  `channel-apply-turns ${new Date().toISOString()}: load average ${loadavg()[0].toFixed(2)}; ${ROWS} rows; admin-api ${DIST}`,
);
for (let run = 1; run <= RUNS; run++) {
  const dir = mkdtempSync(join(tmpdir(), "svc-apply-turns-"));
  const storage = sqliteStorage(dir);
  const repos = createRepositories(storage);
  const put = channels(ROWS);
  const gaps = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await repos.channels.commit({ put });
  const wall = performance.now() - started;
  clearInterval(timer);
  const stored = (await repos.channels.loadAll()).length;
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
  gaps.sort((a, b) => b - a);
  const over = (ms) => gaps.filter((g) => g > ms).length;
  console.log(
    `run ${run}: ${stored} rows stored in ${(wall / 1000).toFixed(2)} s; longest turn ${gaps[0]?.toFixed(1)} ms (next ${gaps
      .slice(1, 4)
      .map((g) => g.toFixed(1))
      .join(", ")}); turns over 20 ms: ${over(20)}, over 50 ms: ${over(50)}`,
  );
}
