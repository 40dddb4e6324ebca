import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { repoRoot } from "./paths.js";
import { withTestStorage } from "./storage-mode.js";

export type Build = "full" | "lite";

export interface GatewayProcess {
  /** `http://127.0.0.1:PORT` from the `listening on` line. */
  readonly url: string;
  readonly proc: ChildProcessWithoutNullStreams;
  readonly dataDir: string;
  readonly configPath: string;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Every gateway a test started and has not stopped: killed if the test process exits first. */
const running = new Set<ChildProcessWithoutNullStreams>();
process.once("exit", () => {
  for (const proc of running) proc.kill("SIGKILL");
});

/** The node flags every launcher gives the gateway (docs/deploy.md, "Node flags"). */
export const GATEWAY_NODE_FLAGS: readonly string[] = JSON.parse(
  readFileSync(join(repoRoot, "scripts", "gateway-node-flags.json"), "utf8"),
);

export function binaryPath(build: Build): string {
  return join(repoRoot, "apps", `gateway-${build}`, "dist", "main.js");
}

/** A temp dir removed when the process exits (or by the caller). */
export function tempDir(prefix = "svc-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Writes `config` as YAML into a fresh temp dir (with `server.listen` on port 0
 * and `server.data_dir` inside the temp dir unless given) and starts the built
 * binary on it; resolves once it prints `listening on`. In the PostgreSQL pass
 * the full binary runs on a database of the harness's server (`storage-mode.ts`).
 */
export async function startGateway(
  build: Build,
  config: Record<string, unknown>,
  options: {
    env?: Record<string, string>;
    timeoutMs?: number;
    dir?: string;
    /** Node flags before the binary (the benches' `--cpu-prof`). */
    nodeArgs?: readonly string[];
  } = {},
): Promise<GatewayProcess> {
  const dir = options.dir ?? tempDir(`svc-${build}-`);
  const server = {
    listen: "127.0.0.1:0",
    data_dir: join(dir, "data"),
    ...(config.server as object | undefined),
  };
  const configPath = join(dir, "gateway.yaml");
  // The PostgreSQL pass (SVC_TEST_STORAGE=postgres): a database for this dir, and the identity cluster mode needs.
  const prepared = await withTestStorage(build, { ...config, server }, options.env ?? {}, dir);
  writeFileSync(configPath, stringify(prepared.config));
  const argv = [
    ...GATEWAY_NODE_FLAGS,
    ...(options.nodeArgs ?? []),
    binaryPath(build),
    "--config",
    configPath,
  ];
  // SVC_TEST_WORKERS=N: every full gateway runs as N workers (docs/cluster.md "Workers").
  const workers = build === "full" ? process.env.SVC_TEST_WORKERS : undefined;
  const proc = spawn(process.execPath, argv, {
    env: {
      PATH: process.env.PATH ?? "",
      SVC_LOG_LEVEL: "warn",
      ...(workers === undefined || workers === "" ? {} : { SVC_WORKERS: workers }),
      ...prepared.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  running.add(proc);
  proc.once("exit", () => running.delete(proc));
  let out = "";
  let err = "";
  proc.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  proc.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A gateway that missed its deadline must not outlive the test: its pipes
      // would keep the test file's process (and the whole run) alive.
      proc.kill("SIGKILL");
      reject(new Error(`gateway did not start:\n${out}\n${err}`));
    }, options.timeoutMs ?? 60_000);
    const onData = () => {
      const m = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        proc.stdout.off("data", onData);
        resolve(m[1]!);
      }
    };
    proc.stdout.on("data", onData);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${out}\n${err}`));
    });
  });
  const exited = new Promise<number | null>((resolve) =>
    proc.once("exit", (code) => resolve(code)),
  );
  return {
    url,
    proc,
    dataDir: server.data_dir,
    configPath,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      const code = await exited;
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

/** Runs a binary on a config that must fail; resolves with exit code and stderr. */
export async function runExpectingExit(
  build: Build,
  configText: string,
  options: { env?: Record<string, string>; args?: string[] } = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const dir = tempDir(`svc-${build}-bad-`);
  const configPath = join(dir, "gateway.yaml");
  writeFileSync(configPath, configText);
  const proc = spawn(
    process.execPath,
    [binaryPath(build), ...(options.args ?? ["--config", configPath])],
    {
      env: { PATH: process.env.PATH ?? "", SVC_LOG_LEVEL: "warn", ...options.env },
      cwd: dir,
    },
  );
  let stderr = "";
  let stdout = "";
  proc.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  proc.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
  const code = await new Promise<number | null>((resolve) => proc.once("exit", (c) => resolve(c)));
  clearTimeout(timer);
  rmSync(dir, { recursive: true, force: true });
  return { code, stderr, stdout };
}
