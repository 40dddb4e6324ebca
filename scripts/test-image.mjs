// `npm run test:image`: builds the container image and runs it, as far as these
// machines allow (called by .ci/run after `npm test`; not part of `npm test`).
//
// No registry image can be pulled here and `podman run` fails (crun cannot set
// RLIMIT_NPROC), so the test: (1) builds a local base from Debian's packages
// (`debootstrap --variant=minbase bookworm`, plus this machine's Node.js 20 in
// /usr/local as the official node image has it, and this machine's CA bundle so
// npm inside the build reaches the registry the way this machine does);
// (2) `podman build --isolation chroot` of the Dockerfile with BASE set to it;
// (3) `podman image mount` and `chroot` as the image's user: the lite binary with
// a config in a temporary /data, /healthz, and a channel's playlist and segment
// from a loopback origin, checked by ffprobe; (4) removes everything it made.
//
// Nothing is cached across runs: the base, the image and every intermediate
// container and image are removed on every exit path (success, failure, the
// hard timeout, SIGINT/SIGTERM/SIGHUP), mounts under the temp dir first.
// Output: one `[test:image <s>s]` line per step and per check; the long output of
// debootstrap and podman build goes to a log whose tail is printed on failure
// (SVC_IMAGE_TEST_VERBOSE=1 streams it). The last line is
// `image test: N passed, N failed` (each check counted) or
// `image test: skipped: <reason>`. Exit status 0 when passed or skipped, else 1.
//
// Environment: SVC_IMAGE_TEST_TIMEOUT_S (hard overall timeout, default 2700 s),
// SVC_IMAGE_TEST_MIRROR (Debian mirror for debootstrap, default deb.debian.org),
// SVC_IMAGE_TEST_VERBOSE=1.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { root } from "./bootstrap.mjs";

const started = Date.now();
const timeoutS = Number(process.env.SVC_IMAGE_TEST_TIMEOUT_S ?? 2700);
const mirror = process.env.SVC_IMAGE_TEST_MIRROR ?? "http://deb.debian.org/debian";
const verbose = process.env.SVC_IMAGE_TEST_VERBOSE === "1";
// debootstrap, chroot and mount live in /usr/sbin, absent from some users' PATH.
process.env.PATH = `${process.env.PATH ?? "/usr/bin:/bin"}:/usr/sbin:/sbin`;

const tag = `svc-image-test-${process.pid}`;
const baseTag = `localhost/${tag}-base:latest`;
const imageTag = `localhost/${tag}:latest`;
const counts = { passed: 0, failed: 0 };
const times = [];
const cleanups = [];
/** Child process groups still running: killed by the timeout, a signal or cleanup. */
const running = new Set();
let work;
let stepLog;
let finishing = false;

const elapsed = () => ((Date.now() - started) / 1000).toFixed(0);
const log = (s) => process.stdout.write(`[test:image ${elapsed()}s] ${s}\n`);
const have = (cmd) =>
  spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;

class Fatal extends Error {}

function skip(reason) {
  process.stdout.write(
    `image test: skipped: ${reason}; the image was not built and not run (nothing counted)\n`,
  );
  process.exit(0);
}

/** A check that is counted and does not stop the test. */
function check(ok, what) {
  const first = what.split("\n")[0];
  if (ok) {
    counts.passed += 1;
    log(`ok: ${first}`);
  } else {
    counts.failed += 1;
    log(`FAILED: ${what}`);
  }
  return ok;
}
/** A counted check the rest of the test depends on: a failure ends it. */
function must(ok, what) {
  if (!check(ok, what)) throw new Fatal(what.split("\n")[0]);
}

/** A named step with its time; a throw counts as one failed check and ends the test. */
async function step(name, fn) {
  const t0 = Date.now();
  log(`${name} …`);
  try {
    const result = await fn();
    const s = ((Date.now() - t0) / 1000).toFixed(0);
    times.push(`${name} ${s} s`);
    log(`done: ${name} (${s} s)`);
    return result;
  } catch (err) {
    if (err instanceof Fatal) throw err;
    counts.failed += 1;
    log(`FAILED: ${name}: ${err.message}`);
    throw new Fatal(name);
  }
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Runs a command in its own process group (so a timeout or a signal ends it and
 * everything it started); its output goes to the step log (or the terminal when
 * verbose). Rejects on a non-zero exit or after timeoutMs.
 */
function run(cmd, args, { timeoutMs = 600_000, capture = false } = {}) {
  return new Promise((resolve, reject) => {
    const fd = verbose || capture ? undefined : openSync(stepLog, "a");
    const child = spawn(cmd, args, {
      detached: true,
      stdio: ["ignore", capture ? "pipe" : (fd ?? "inherit"), fd ?? "inherit"],
    });
    if (fd !== undefined) closeSync(fd);
    running.add(child);
    let stdout = "";
    child.stdout?.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    const timer = setTimeout(() => {
      killGroup(child, "SIGTERM");
      setTimeout(() => killGroup(child, "SIGKILL"), 5000).unref();
      reject(new Error(`${cmd} timed out after ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      running.delete(child);
      reject(err);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      if (code === 0) resolve(stdout.trim());
      else
        reject(new Error(`${cmd} ${args.slice(0, 3).join(" ")} … exited with ${code ?? signal}`));
    });
  });
}
const out = (cmd, args) => execFileSync(cmd, args, { encoding: "utf8", timeout: 120_000 }).trim();
const quiet = (cmd, args) => spawnSync(cmd, args, { stdio: "ignore", timeout: 120_000 });

/** Mount points at or under dir, deepest first (/proc/self/mounts escapes spaces as \040). */
function mountsUnder(dir) {
  return readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1]?.replace(/\\040/g, " "))
    .filter((at) => at !== undefined && (at === dir || at.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
}
/** Unmounts everything under dir (debootstrap's /proc and /sys, our binds); true when none is left. */
function unmountUnder(dir) {
  for (const at of mountsUnder(dir)) quiet("umount", ["-l", at]);
  return mountsUnder(dir).length === 0;
}
const podmanIds = (args) =>
  new Set(
    (spawnSync("podman", args, { encoding: "utf8", timeout: 120_000 }).stdout ?? "")
      .split("\n")
      .filter(Boolean),
  );

function printLogTail() {
  if (verbose || !stepLog || !existsSync(stepLog)) return;
  const lines = readFileSync(stepLog, "utf8").trimEnd().split("\n");
  process.stdout.write(`---- last ${Math.min(80, lines.length)} lines of ${stepLog} ----\n`);
  process.stdout.write(`${lines.slice(-80).join("\n")}\n---- end of log ----\n`);
}

/** Runs on every exit path, once: stop children, undo in reverse order, delete the temp dir. */
function finish(reason) {
  if (finishing) return;
  finishing = true;
  if (reason) {
    counts.failed += 1;
    log(`FAILED: ${reason}`);
  }
  if (counts.failed > 0) printLogTail();
  for (const child of running) killGroup(child, "SIGKILL");
  log("cleanup …");
  for (const undo of cleanups.reverse()) {
    try {
      undo();
    } catch (err) {
      log(`cleanup: ${err.message}`);
    }
  }
  if (work) {
    // Never delete through a mount point: a bind of /dev or a proc would be emptied.
    if (unmountUnder(work)) rmSync(work, { recursive: true, force: true });
    else {
      counts.failed += 1;
      log(`FAILED: mounts left under ${work}, not deleted: ${mountsUnder(work).join(", ")}`);
    }
  }
  log(`times: ${times.join(", ") || "none"}; total ${elapsed()} s`);
  process.stdout.write(`image test: ${counts.passed} passed, ${counts.failed} failed\n`);
  process.exit(counts.failed > 0 ? 1 : 0);
}

if (process.platform !== "linux") skip("it needs Linux (debootstrap, chroot)");
if (process.getuid?.() !== 0) skip("it needs root (debootstrap, podman image mount, chroot)");
for (const tool of ["podman", "debootstrap", "chroot", "ffmpeg", "ffprobe"])
  if (!have(tool)) skip(`${tool} is not installed`);
if (Number(process.versions.node.split(".")[0]) !== 20)
  skip(`the local base copies this machine's Node.js, which must be 20 (${process.version})`);

// One run at a time per machine: a second run's cleanup would take the first
// one's build containers and images for its own.
const lockPath = join(tmpdir(), "svc-image-test.lock");
const lockHolder = takeLock();
if (lockHolder !== undefined) {
  process.stdout.write(
    `image test: 0 passed, 1 failed (another run, pid ${lockHolder}, holds ${lockPath})\n`,
  );
  process.exit(1);
}
cleanups.push(() => rmSync(lockPath, { force: true }));

const deadline = setTimeout(() => finish(`hard timeout of ${timeoutS} s reached`), timeoutS * 1000);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"])
  process.on(signal, () => finish(`interrupted by ${signal}`));

work = mkdtempSync(join(tmpdir(), "svc-image-"));
stepLog = join(work, "steps.log");
// Whatever podman makes from here on (the base, build containers, stage images) is ours.
const containersBefore = podmanIds(["ps", "-a", "--external", "--no-trunc", "--format", "{{.ID}}"]);
const imagesBefore = podmanIds(["images", "-a", "--no-trunc", "--format", "{{.ID}}"]);
cleanups.push(() => {
  quiet("podman", ["rmi", "-f", imageTag, baseTag]);
  const containers = podmanIds(["ps", "-a", "--external", "--no-trunc", "--format", "{{.ID}}"]);
  for (const id of containers) if (!containersBefore.has(id)) quiet("podman", ["rm", "-f", id]);
  const images = podmanIds(["images", "-a", "--no-trunc", "--format", "{{.ID}}"]);
  for (const id of images) if (!imagesBefore.has(id)) quiet("podman", ["rmi", "-f", id]);
});
log(
  `work dir ${work}; hard timeout ${timeoutS} s; step output in ${verbose ? "the terminal" : stepLog}`,
);

try {
  await main();
} catch (err) {
  if (!(err instanceof Fatal)) {
    counts.failed += 1;
    log(`FAILED: ${err.stack ?? err}`);
  }
}
clearTimeout(deadline);
finish();

async function main() {
  // 1. The local base: Debian bookworm minbase + this machine's Node.js 20.
  const rootfs = join(work, "rootfs");
  await step("debootstrap bookworm (minbase)", () =>
    run("debootstrap", ["--variant=minbase", "bookworm", rootfs, mirror], {
      timeoutMs: 900_000,
    }),
  );
  await step("copy Node.js into the base", () => {
    const prefix = dirname(dirname(process.execPath)); // /usr for /usr/bin/node
    const local = join(rootfs, "usr", "local");
    cpSync(process.execPath, join(local, "bin", "node"));
    cpSync(join(prefix, "include", "node"), join(local, "include", "node"), { recursive: true });
    cpSync(join(prefix, "lib", "node_modules", "npm"), join(local, "lib", "node_modules", "npm"), {
      recursive: true,
    });
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(local, "bin", "npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(local, "bin", "npx"));
    // The machine's trust store: npm in the build reaches the registry as this machine does.
    mkdirSync(join(rootfs, "etc", "ssl", "certs"), { recursive: true });
    cpSync(
      "/etc/ssl/certs/ca-certificates.crt",
      join(rootfs, "etc", "ssl", "certs", "ca-certificates.crt"),
    );
  });
  const nodeInBase = spawnSync("chroot", [rootfs, "/usr/local/bin/node", "--version"], {
    encoding: "utf8",
    timeout: 60_000,
  });
  must(
    nodeInBase.stdout?.trim() === process.version,
    `node runs in the base (${nodeInBase.stdout?.trim()} ${nodeInBase.stderr?.trim() ?? ""})`,
  );
  if (!unmountUnder(rootfs)) throw new Fatal(`mounts left under ${rootfs}`);
  const baseTar = join(work, "base.tar");
  await step("podman import the base", async () => {
    await run("tar", ["-C", rootfs, "-cf", baseTar, "."], { timeoutMs: 600_000 });
    rmSync(rootfs, { recursive: true, force: true });
    await run(
      "podman",
      [
        "import",
        "--change",
        "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt",
        "--change",
        'CMD ["node"]',
        baseTar,
        baseTag,
      ],
      { timeoutMs: 600_000 },
    );
    rmSync(baseTar, { force: true });
  });

  // 2. The image, from the repository's Dockerfile, with nothing cached.
  const commit = out("git", ["-C", root, "rev-parse", "--short=12", "HEAD"]);
  await step("podman build --isolation chroot", () =>
    run(
      "podman",
      [
        "build",
        "--isolation",
        "chroot",
        "--no-cache",
        "--force-rm",
        // Docker format: the OCI format has no HEALTHCHECK and podman would drop it.
        "--format",
        "docker",
        "--layers=false",
        "--pull=never",
        "--build-arg",
        `BASE=${baseTag}`,
        "--build-arg",
        `COMMIT=${commit}`,
        "-t",
        imageTag,
        "-f",
        join(root, "Dockerfile"),
        root,
      ],
      { timeoutMs: Math.max(60_000, timeoutS * 1000 - (Date.now() - started) - 300_000) },
    ),
  );
  const inspect = JSON.parse(out("podman", ["image", "inspect", imageTag]))[0];
  const cfg = inspect.Config;
  check(cfg.User === "svc:svc", `image user is svc:svc (${cfg.User})`);
  check(cfg.Env.includes("SVC_CONFIG=/data/gateway.yaml"), "SVC_CONFIG=/data/gateway.yaml");
  check(Object.keys(cfg.Volumes ?? {}).includes("/data"), "/data is a volume");
  check(
    JSON.stringify(cfg.Entrypoint) === '["/usr/bin/tini","--"]',
    `tini is PID 1 (${JSON.stringify(cfg.Entrypoint)})`,
  );
  check(
    JSON.stringify(inspect.HealthCheck ?? inspect.Healthcheck ?? cfg.Healthcheck ?? null).includes(
      "/healthz",
    ),
    "HEALTHCHECK on /healthz",
  );
  log(`image size ${(inspect.Size / 1e6).toFixed(0)} MB`);

  // 3. Run the lite binary from the mounted image under chroot as the image's user.
  const mnt = await step("podman image mount", () => out("podman", ["image", "mount", imageTag]));
  cleanups.push(() => {
    unmountUnder(mnt);
    quiet("podman", ["image", "unmount", "--force", imageTag]);
  });
  const passwd = readFileSync(join(mnt, "etc", "passwd"), "utf8");
  const svc = /^svc:x:(\d+):(\d+):/m.exec(passwd);
  must(svc !== null && svc[1] !== "0", "the image has a non-root user svc");
  const [uid, gid] = [svc[1], svc[2]];
  const data = join(work, "data");
  mkdirSync(data, { mode: 0o700 });
  execFileSync("chown", [`${uid}:${gid}`, data]);
  for (const [source, target, type] of [
    [data, "data"],
    ["/dev", "dev"],
    ["proc", "proc", "proc"],
  ]) {
    const at = join(mnt, target);
    mkdirSync(at, { recursive: true });
    execFileSync("mount", type ? ["-t", type, source, at] : ["--bind", source, at]);
    cleanups.push(() => quiet("umount", ["-l", at]));
  }
  const envIn = [
    "/usr/bin/env",
    "-i",
    "PATH=/usr/local/bin:/usr/bin:/bin",
    "HOME=/data",
    "SVC_CONFIG=/data/gateway.yaml",
  ];
  const inImage = (args) =>
    spawnSync("chroot", [`--userspec=${uid}:${gid}`, mnt, ...envIn, ...args], {
      encoding: "utf8",
      timeout: 120_000,
    });
  const version = inImage(["gateway-lite", "--version"]);
  check(
    version.status === 0 && version.stdout === `svc-gateway lite 0.1.0 (commit ${commit})\n`,
    `gateway-lite --version: ${version.stdout.trim()}${version.stderr.trim()}`,
  );
  const fullVersion = inImage(["gateway-full", "--version"]);
  check(
    fullVersion.status === 0 &&
      fullVersion.stdout === `svc-gateway full 0.1.0 (commit ${commit})\n`,
    `gateway-full --version: ${fullVersion.stdout.trim()}${fullVersion.stderr.trim()}`,
  );
  const ffmpegInImage = inImage(["ffmpeg", "-hide_banner", "-version"]);
  check(
    ffmpegInImage.status === 0 && /^ffmpeg version/.test(ffmpegInImage.stdout),
    "ffmpeg runs in the image",
  );
  // better-sqlite3 resolves where the full build's state lives (admin-api), never from the
  // lite app's folder (operator contract: the lite binary does not load it).
  const resolves = (dir) =>
    inImage([
      "sh",
      "-c",
      `cd /app/${dir} && node --input-type=module -e "import('better-sqlite3').then(() => process.exit(0), () => process.exit(3))"`,
    ]).status;
  check(resolves("packages/admin-api") === 0, "the full build's admin-api resolves better-sqlite3");
  check(resolves("apps/gateway-lite") === 3, "the lite app cannot resolve better-sqlite3");

  // A loopback origin with real media made by the host's ffmpeg.
  const media = join(work, "media");
  mkdirSync(media);
  await step("make a small HLS stream with ffmpeg", () =>
    run(
      "ffmpeg",
      [
        "-hide_banner",
        "-loglevel",
        "error",
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=160x90:rate=10",
        "-t",
        "4",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-g",
        "10",
        "-f",
        "hls",
        "-hls_time",
        "1",
        "-hls_playlist_type",
        "vod",
        join(media, "index.m3u8"),
      ],
      { timeoutMs: 120_000 },
    ),
  );
  const origin = createServer((req, res) => {
    const name = (req.url ?? "").split("?")[0].replace(/^\//, "");
    if (!/^[\w.-]+$/.test(name)) return res.writeHead(404).end();
    try {
      const body = readFileSync(join(media, name));
      res.writeHead(200, {
        "content-type": name.endsWith(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t",
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => origin.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => origin.close());
  const originUrl = `http://127.0.0.1:${origin.address().port}`;
  const config = [
    "server:",
    '  listen: "127.0.0.1:0"',
    '  data_dir: "/data"',
    "auth:",
    "  users:",
    '    - {username: admin, password_hash: "$2b$04$abcdefghijklmnopqrstuu5Ki3RBBYQdYwGhkYX2CqOFqAPmcC0Ly", role: admin}',
    "security:",
    "  play_require_auth: false",
    '  allowed_hosts: ["127.0.0.1"]',
    "channels:",
    `  - {id: test, title: Test, ingress: hls, source_url: "${originUrl}/index.m3u8"}`,
    "",
  ].join("\n");
  writeFileSync(join(data, "gateway.yaml"), config, { mode: 0o600 });
  execFileSync("chown", [`${uid}:${gid}`, join(data, "gateway.yaml")]);
  const checked = inImage(["gateway-lite", "--check-config"]);
  must(
    checked.status === 0,
    `gateway-lite --check-config: ${checked.stdout.trim()}${checked.stderr.trim()}`,
  );

  await step("run gateway-lite in the image", async () => {
    // tini -s (subreaper) as the image's ENTRYPOINT has it; node is its child.
    const proc = spawn(
      "chroot",
      [
        `--userspec=${uid}:${gid}`,
        mnt,
        "/usr/bin/tini",
        "-s",
        "--",
        ...envIn,
        "SVC_LOG_FORMAT=json",
        "gateway-lite",
      ],
      { stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    running.add(proc);
    cleanups.push(() => killGroup(proc, "SIGKILL"));
    let stdout = "";
    let stderr = "";
    proc.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    proc.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    const exited = new Promise((resolve) =>
      proc.once("exit", (code) => {
        running.delete(proc);
        resolve(code);
      }),
    );
    for (let i = 0; i < 600 && !/^listening on /m.test(stdout); i++)
      await new Promise((r) => setTimeout(r, 100));
    const url = /^listening on (http:\/\/\S+)$/m.exec(stdout)?.[1];
    must(url !== undefined, `the gateway started:\n${stdout}\n${stderr}`);
    const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
    check(new RegExp(`^Uid:\\s+${uid}\\s`, "m").test(status), `runs as uid ${uid}`);
    check(
      /"msg":"engines: native \(HLS proxy, DASH packager\), ffmpeg \S+ \(ffmpeg\)"/.test(stdout),
      "the startup summary finds the image's ffmpeg",
    );
    check(/"msg":"channels: 1"/.test(stdout), "the startup summary counts one channel");
    const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) });
    check(health.status === 200 && (await health.json()).status === "ok", "/healthz answers ok");
    const playlist = await fetch(`${url}/v1/play/test/index.m3u8`, {
      signal: AbortSignal.timeout(30_000),
    });
    const text = await playlist.text();
    check(
      playlist.status === 200 &&
        text.startsWith("#EXTM3U") &&
        /(^|\/)u\/[A-Za-z0-9_-]+/m.test(text),
      "the channel playlist is rewritten through the gateway",
    );
    // ffprobe reads the playlist and a segment through the gateway; asynchronous, as
    // the loopback origin lives in this process and must keep answering.
    const probe = await run(
      "ffprobe",
      [
        "-v",
        "error",
        "-show_entries",
        "stream=codec_name,width",
        "-of",
        "json",
        `${url}/v1/play/test/index.m3u8`,
      ],
      { timeoutMs: 60_000, capture: true },
    ).catch((err) => `error: ${err.message}`);
    // JSON: ffprobe lists an HLS stream once under its program and once on its own.
    let streams;
    try {
      streams = JSON.parse(probe).streams?.map((s) => `${s.codec_name},${s.width}`);
    } catch {
      streams = undefined;
    }
    check(
      streams?.length === 1 && streams[0] === "h264,160",
      `ffprobe plays the channel through the image's gateway (${streams?.join(" ") ?? probe})`,
    );
    proc.kill("SIGTERM");
    const code = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r("timeout"), 12_000)),
    ]);
    check(code === 0, `SIGTERM through tini stops it with status 0 (${code})`);
  });
}

/** Takes the machine-wide lock; returns the live holder's pid when another run has it. */
function takeLock() {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockPath, `${process.pid}\n`, { flag: "wx" });
      return undefined;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      const pid = Number(readFileSync(lockPath, "utf8").trim());
      try {
        if (pid > 0 && pid !== process.pid) {
          process.kill(pid, 0);
          return pid;
        }
      } catch {
        // the holder is gone: a stale lock
      }
      rmSync(lockPath, { force: true });
    }
  }
  return undefined;
}
