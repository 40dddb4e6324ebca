// Lite binary: time from process start to the `listening on` line (median of N
// runs) and idle RSS two seconds after start. Run after `npm run build`:
//   node bench/lite-startup.mjs [runs=5]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(import.meta.url), "..", "..");
const runs = Number(process.argv[2] ?? 5);
const dir = mkdtempSync(join(tmpdir(), "svc-startup-"));
const config = join(dir, "gateway.yaml");
// A bcrypt hash of a throwaway password (cost 4); the bench never logs in.
writeFileSync(
  config,
  `server: {listen: "127.0.0.1:0", data_dir: "${dir}"}\nauth:\n  users:\n    - {username: admin, password_hash: "$2b$04$Qm8FzN1p0mV1dJd8lHq2UeX1yK3o9jM2vVf0bS3cT4dE5fG6hI7jK", role: admin}\nchannels:\n  - {id: a, title: A, ingress: hls, source_url: "http://127.0.0.1:9/a.m3u8"}\n`,
);

function once() {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const proc = spawn(
      process.execPath,
      [join(root, "apps/gateway-lite/dist/main.js"), "--config", config],
      {
        env: { PATH: process.env.PATH, SVC_LOG_LEVEL: "warn" },
      },
    );
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (d) => {
      out += d;
      if (out.includes("listening on") && !proc.measured) {
        proc.measured = true;
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        setTimeout(() => {
          const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
          const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
          proc.kill("SIGTERM");
          proc.once("exit", () => resolve({ ms, rssMb: rssKb / 1024 }));
        }, 2000);
      }
    });
    proc.once("error", reject);
  });
}

/** Control: a bare `node -e 0` start and exit, measured between the gateway runs. */
function bareNode() {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    spawn(process.execPath, ["-e", "0"]).once("exit", () =>
      resolve(Number(process.hrtime.bigint() - started) / 1e6),
    );
  });
}

const results = [];
const control = [];
for (let i = 0; i < runs; i++) {
  results.push(await once());
  control.push(await bareNode());
}
rmSync(dir, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`runs: ${results.map((r) => r.ms.toFixed(0)).join(", ")} ms`);
console.log(
  `start to listening, median of ${runs}: ${median(results.map((r) => r.ms)).toFixed(0)} ms`,
);
console.log(`idle RSS, median: ${median(results.map((r) => r.rssMb)).toFixed(1)} MiB`);
console.log(`control, bare \`node -e 0\`, median of ${runs}: ${median(control).toFixed(0)} ms`);
