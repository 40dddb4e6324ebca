import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Build, binaryPath } from "./gateway-process.js";

export interface BinaryRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a gateway binary to completion (a command-line action, not a server):
 * `input` is written to its standard input, which is then closed. Only `PATH`
 * and `HOME` (set to `cwd`) come from outside, plus `env`.
 */
export async function runBinary(
  build: Build,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; input?: string; timeoutMs?: number },
): Promise<BinaryRun> {
  const proc = spawn(process.execPath, [binaryPath(build), ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: options.cwd, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  proc.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  proc.stdin.on("error", () => {
    // The binary may exit before reading its input (a usage error): not a test failure.
  });
  proc.stdin.end(options.input ?? "");
  const timer = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  const code = await new Promise<number | null>((resolve) => proc.once("exit", (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Every file and directory under `dir` with size and mtime: equal snapshots mean nothing was written. */
export function snapshotTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const s = statSync(path);
      out.push(`${path} ${s.isDirectory() ? "dir" : s.size} ${s.mtimeMs} ${s.mode}`);
      if (s.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return out;
}
