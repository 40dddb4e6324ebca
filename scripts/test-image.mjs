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
// Nothing is cached across runs. Prints `image test: passed|failed|NOT RUN …`.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
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
const tag = `svc-image-test-${process.pid}`;
const baseTag = `localhost/${tag}-base:latest`;
const imageTag = `localhost/${tag}:latest`;
const work = mkdtempSync(join(tmpdir(), "svc-image-"));
const cleanups = [];
const times = [];
let checks = 0;

const log = (s) =>
  process.stdout.write(`[test:image ${((Date.now() - started) / 1000).toFixed(0)}s] ${s}\n`);
const have = (cmd) =>
  spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;

function notRun(reason) {
  process.stdout.write(`image test: NOT RUN: ${reason}; the image was not built and not run\n`);
  process.exit(0);
}

/** Runs a command with inherited output; throws on a non-zero exit. */
function sh(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"], ...options });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} exited with ${r.status ?? r.signal}`);
}
function out(cmd, args) {
  return execFileSync(cmd, args, { encoding: "utf8" }).trim();
}
async function step(name, fn) {
  const t0 = Date.now();
  log(`${name} …`);
  const result = await fn();
  times.push(`${name} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return result;
}

if (process.getuid?.() !== 0) notRun("it needs root (debootstrap, podman image mount, chroot)");
for (const tool of ["podman", "debootstrap", "ffmpeg", "ffprobe"])
  if (!have(tool)) notRun(`${tool} is not installed`);

let failed;
try {
  // 1. The local base: Debian bookworm minbase + this machine's Node.js 20.
  const rootfs = join(work, "rootfs");
  await step("debootstrap bookworm (minbase)", () =>
    sh("debootstrap", ["--variant=minbase", "bookworm", rootfs, "http://deb.debian.org/debian"], {
      stdio: ["ignore", "ignore", "inherit"],
    }),
  );
  await step("copy Node.js into the base", () => {
    const major = Number(process.versions.node.split(".")[0]);
    if (major !== 20)
      throw new Error(`the base needs Node.js 20, this machine runs ${process.version}`);
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
  await step("podman import the base", () => {
    const tar = spawn("tar", ["-C", rootfs, "-c", "."], { stdio: ["ignore", "pipe", "inherit"] });
    const imp = spawn(
      "podman",
      [
        "import",
        "--change",
        "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt",
        "--change",
        'CMD ["node"]',
        "-",
        baseTag,
      ],
      { stdio: [tar.stdout, "ignore", "inherit"] },
    );
    cleanups.push(() => spawnSync("podman", ["rmi", "-f", baseTag], { stdio: "ignore" }));
    return new Promise((resolve, reject) =>
      imp.once("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`podman import exited ${code}`)),
      ),
    );
  });
  rmSync(rootfs, { recursive: true, force: true });

  // 2. The image, from the repository's Dockerfile, with nothing cached.
  const commit = out("git", ["-C", root, "rev-parse", "--short=12", "HEAD"]);
  await step("podman build --isolation chroot", () => {
    cleanups.push(() => spawnSync("podman", ["rmi", "-f", imageTag], { stdio: "ignore" }));
    sh("podman", [
      "build",
      "--isolation",
      "chroot",
      "--no-cache",
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
    ]);
  });
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

  // 3. Run the lite binary from the mounted image under chroot as the image's user.
  const mnt = await step("podman image mount", () => out("podman", ["image", "mount", imageTag]));
  cleanups.push(() => spawnSync("podman", ["image", "unmount", imageTag], { stdio: "ignore" }));
  const passwd = readFileSync(join(mnt, "etc", "passwd"), "utf8");
  const svc = /^svc:x:(\d+):(\d+):/m.exec(passwd);
  check(svc !== null && svc[1] !== "0", "the image has a non-root user svc");
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
    sh("mount", type ? ["-t", type, source, at] : ["--bind", source, at]);
    cleanups.push(() => spawnSync("umount", ["-l", at], { stdio: "ignore" }));
  }
  const inImage = (args, opts = {}) =>
    spawnSync(
      "chroot",
      [
        `--userspec=${uid}:${gid}`,
        mnt,
        "/usr/bin/env",
        "-i",
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "HOME=/data",
        "SVC_CONFIG=/data/gateway.yaml",
        ...args,
      ],
      {
        encoding: "utf8",
        ...opts,
      },
    );
  const version = inImage(["gateway-lite", "--version"]);
  check(
    version.status === 0 && version.stdout === `svc-gateway lite 0.1.0 (commit ${commit})\n`,
    `gateway-lite --version: ${version.stdout.trim()}`,
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
    sh("ffmpeg", [
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
    ]),
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
  const check2 = inImage(["gateway-lite", "--check-config"]);
  check(
    check2.status === 0,
    `gateway-lite --check-config: ${check2.stdout.trim()}${check2.stderr.trim()}`,
  );

  await step("run gateway-lite in the image", async () => {
    const proc = spawn(
      "chroot",
      [
        `--userspec=${uid}:${gid}`,
        mnt,
        "/usr/bin/tini",
        "-s",
        "--",
        "/usr/bin/env",
        "-i",
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "HOME=/data",
        "SVC_CONFIG=/data/gateway.yaml",
        "SVC_LOG_FORMAT=json",
        "gateway-lite",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    cleanups.push(() => proc.kill("SIGKILL"));
    let stdout = "";
    let stderr = "";
    proc.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    proc.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    const exited = new Promise((resolve) => proc.once("exit", (code) => resolve(code)));
    for (let i = 0; i < 300 && !/^listening on /m.test(stdout); i++)
      await new Promise((r) => setTimeout(r, 100));
    const url = /^listening on (http:\/\/\S+)$/m.exec(stdout)?.[1];
    check(url !== undefined, `the gateway started:\n${stdout}\n${stderr}`);
    const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
    // tini -s (subreaper) runs as the image user; node is its child.
    check(new RegExp(`^Uid:\\s+${uid}\\s`, "m").test(status), `runs as uid ${uid}`);
    check(
      /"msg":"engines: native \(HLS proxy, DASH packager\), ffmpeg \S+ \(ffmpeg\)"/.test(stdout),
      "the startup summary finds the image's ffmpeg",
    );
    check(/"msg":"channels: 1"/.test(stdout), "the startup summary counts one channel");
    const health = await fetch(`${url}/healthz`);
    check(health.status === 200 && (await health.json()).status === "ok", "/healthz answers ok");
    const playlist = await fetch(`${url}/v1/play/test/index.m3u8`);
    const text = await playlist.text();
    check(
      playlist.status === 200 &&
        text.startsWith("#EXTM3U") &&
        /(^|\/)u\/[A-Za-z0-9_-]+/m.test(text),
      "the channel playlist is rewritten through the gateway",
    );
    // Asynchronous: the loopback origin lives in this process and must keep answering.
    const probe = await runAsync(
      "ffprobe",
      [
        "-v",
        "error",
        "-show_entries",
        "stream=codec_name,width",
        "-of",
        "csv=p=0",
        `${url}/v1/play/test/index.m3u8`,
      ],
      60_000,
    );
    check(
      probe.status === 0 && probe.stdout.trim() === "h264,160",
      `ffprobe plays the channel through the image's gateway (${probe.stdout.trim()} ${probe.stderr.trim()})`,
    );
    proc.kill("SIGTERM");
    const code = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r("timeout"), 12_000)),
    ]);
    check(code === 0, `SIGTERM through tini stops it with status 0 (${code})`);
  });
} catch (err) {
  failed = err;
} finally {
  for (const undo of cleanups.reverse()) {
    try {
      undo();
    } catch {
      // best effort: the next undo still runs
    }
  }
  rmSync(work, { recursive: true, force: true });
}
const total = ((Date.now() - started) / 1000).toFixed(0);
log(`times: ${times.join(", ")}; total ${total} s`);
if (failed) {
  process.stdout.write(`image test: failed: ${failed.message}\n`);
  process.exit(1);
}
process.stdout.write(`image test: passed (${checks} checks, ${total} s)\n`);

function check(ok, what) {
  if (!ok) throw new Error(what);
  checks += 1;
  log(`ok: ${what.split("\n")[0]}`);
}

/** Runs a command without blocking the event loop; resolves with status and output. */
function runAsync(cmd, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
