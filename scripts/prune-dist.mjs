// Deletes what `tsc` compiled from a source that no longer exists: tsc writes
// `dist/` but never removes a file from it, so a moved or deleted `src/x.test.ts`
// would leave `dist/x.test.js` behind for the test runner to find. Run in a
// package after its `tsc -p tsconfig.json` (rootDir `src`, outDir `dist`);
// incremental builds keep their speed, only orphans go.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const OUTPUTS = [".d.ts.map", ".js.map", ".d.ts", ".js"];
const SOURCES = [".ts", ".tsx"];

function prune(distDir, srcDir) {
  let removed = 0;
  for (const entry of readdirSync(distDir, { withFileTypes: true })) {
    const out = join(distDir, entry.name);
    if (entry.isDirectory()) {
      removed += prune(out, join(srcDir, entry.name));
      if (readdirSync(out).length === 0) rmSync(out, { recursive: true });
      continue;
    }
    const suffix = OUTPUTS.find((s) => entry.name.endsWith(s));
    if (suffix === undefined) continue;
    const stem = join(srcDir, entry.name.slice(0, -suffix.length));
    if (SOURCES.some((s) => existsSync(stem + s))) continue;
    rmSync(out);
    removed += 1;
  }
  return removed;
}

if (existsSync("dist")) {
  const removed = prune("dist", "src");
  if (removed > 0) console.log(`prune-dist: removed ${removed} file(s) without a source`);
}
