import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../harness/gateway-process.js";
import { repoRoot } from "../harness/paths.js";

// The image itself is built and run by `npm run test:image` (.ci/run, after npm test);
// here only its refusal to start without its tools, which must be a clear skip.
describe("npm run test:image without its tools", () => {
  it("prints `image test: skipped: <reason>`, exits 0 and makes nothing", () => {
    const dir = tempDir("svc-image-skip-");
    const empty = join(dir, "empty-path");
    const tmp = join(dir, "tmp");
    mkdirSync(empty);
    mkdirSync(tmp);
    try {
      const r = spawnSync(process.execPath, [join(repoRoot, "scripts", "test-image.mjs")], {
        encoding: "utf8",
        timeout: 30_000,
        // No podman, debootstrap or ffmpeg on this PATH; TMPDIR shows whether a work dir is made.
        env: { PATH: empty, TMPDIR: tmp, HOME: dir },
      });
      assert.equal(r.status, 0, r.stderr);
      const lines = r.stdout.trimEnd().split("\n");
      assert.equal(lines.length, 1, r.stdout);
      assert.match(
        lines[0] ?? "",
        /^image test: skipped: (it needs root|podman is not installed|debootstrap is not installed|chroot is not installed)/,
      );
      assert.deepEqual(readdirSync(tmp), [], "no temp dir left");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
