import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { tempDir } from "./gateway-process.js";
import { repoRoot } from "./paths.js";
import { until } from "./until.js";

/** Whether an nginx binary is on PATH (suites skip the nginx checks without one). */
export function hasNginx(): boolean {
  return spawnSync("sh", ["-c", "command -v nginx"]).status === 0;
}

export interface NginxFront {
  /** `http://127.0.0.1:PORT`: nginx's loopback listener. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Replaces `from` with `to`, failing loudly when the recipe no longer has `from`. */
function swap(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`deploy/nginx-svc-cluster.conf no longer has ${String(from)}`);
  return out;
}

/**
 * Runs deploy/nginx-svc-cluster.conf as docs/deploy.md shows it, with only what a test
 * machine needs changed: the upstream servers become `gateways` (loopback gateway URLs),
 * the TLS listener a plain one on a free loopback port, and the cache goes into a temp dir.
 */
export async function startNginxFront(gateways: readonly string[]): Promise<NginxFront> {
  const dir = tempDir("svc-nginx-front-");
  const port = await freePort();
  let site = readFileSync(join(repoRoot, "deploy", "nginx-svc-cluster.conf"), "utf8");
  site = swap(site, "/var/cache/nginx/svc-gateway", join(dir, "cache"));
  site = swap(
    site,
    /( {4}server 10\.0\.0\.1\d:8080 [^\n]*\n)+/,
    gateways.map((g) => `    server ${new URL(g).host} max_fails=2 fail_timeout=5s;\n`).join(""),
  );
  site = swap(
    site,
    "    listen 443 ssl http2;\n    listen [::]:443 ssl http2;\n",
    `    listen 127.0.0.1:${port};\n`,
  );
  site = swap(site, /\n {4}ssl_[^\n]*/g, "");
  // The port-80 redirect server is for the public machine only.
  site = swap(site, /\nserver \{\n {4}listen 80;[\s\S]*$/, "\n");
  mkdirSync(join(dir, "temp"));
  writeFileSync(join(dir, "site.conf"), site);
  writeFileSync(
    join(dir, "nginx.conf"),
    [
      // As root, workers would drop to `nobody`, who cannot write the temp dir's cache.
      process.getuid?.() === 0 ? "user root;" : "",
      "daemon off;",
      "worker_processes 1;",
      `pid ${dir}/nginx.pid;`,
      "error_log stderr warn;",
      "events { worker_connections 256; }",
      "http {",
      "  access_log off;",
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
        (t) => `  ${t}_temp_path ${dir}/temp/${t};`,
      ),
      `  include ${dir}/site.conf;`,
      "}",
      "",
    ].join("\n"),
  );
  const proc: ChildProcess = spawn(
    "nginx",
    ["-e", "stderr", "-p", dir, "-c", join(dir, "nginx.conf")],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  proc.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(
      "nginx to listen",
      async () => {
        if (proc.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
        try {
          await fetch(`${url}/healthz`);
          return true;
        } catch {
          return undefined;
        }
      },
      10_000,
    );
  } catch (err) {
    proc.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGQUIT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
