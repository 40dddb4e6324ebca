// Writes {name, version, commit} next to the built app so `GET /` can report them
// without running git at request time.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const [out, pkgPath] = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
// A build without the git history (the container image's build context leaves
// .git out) names its commit in SVC_BUILD_COMMIT.
let commit = process.env.SVC_BUILD_COMMIT || "unknown";
if (!process.env.SVC_BUILD_COMMIT)
  try {
    commit = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    // Not a git checkout (a release tarball): the commit stays "unknown".
  }
writeFileSync(out, `${JSON.stringify({ name: "svc-gateway", version: pkg.version, commit })}\n`);
