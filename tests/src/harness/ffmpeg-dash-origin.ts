import { type ChildProcess, spawn } from "node:child_process";
import { createReadStream, mkdirSync, readdirSync, statSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

// A live DASH source made by ffmpeg at test time, and a loopback HTTP origin serving it.
// Only 127.0.0.1 is ever bound or contacted.

const generators = new Set<ChildProcess>();
process.once("exit", () => {
  for (const g of generators) if (g.pid !== undefined) killGroup(g.pid, "SIGKILL");
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export interface DashSource {
  readonly dir: string;
  readonly pid: number;
  /** SIGSTOP / SIGCONT the generator: the live edge stops moving, then moves on. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/**
 * Start ffmpeg writing a live DASH presentation (testsrc2 + sine, H.264/AAC, 1 s segments,
 * SegmentTemplate with SegmentTimeline, 5-segment window) into `dir/live/`, and wait until
 * the MPD and three media segments exist.
 */
export async function startDashSource(
  dir: string,
  opts: { timeoutMs?: number } = {},
): Promise<DashSource> {
  const out = join(dir, "live");
  const args = [
    ...["-hide_banner", "-nostdin", "-loglevel", "error", "-re"],
    ...["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"],
    ...[
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-g",
      "25",
      "-keyint_min",
      "25",
      "-sc_threshold",
      "0",
    ],
    ...["-c:a", "aac", "-b:a", "64k", "-t", "300"],
    ...["-f", "dash", "-streaming", "1", "-seg_duration", "1", "-window_size", "5"],
    ...["-use_template", "1", "-use_timeline", "1", join(out, "manifest.mpd")],
  ];
  mkdirSync(out, { recursive: true });
  const proc = spawn("ffmpeg", args, { detached: true, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  proc.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err = (err + d).slice(-2000);
  });
  if (proc.pid === undefined) throw new Error("ffmpeg did not start");
  const pid = proc.pid;
  generators.add(proc);
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.once("exit", () => generators.delete(proc));
  const ready = await waitFor(() => {
    try {
      statSync(join(out, "manifest.mpd"));
      return readdirSync(out).filter((n) => n.startsWith("chunk-stream0-")).length >= 3;
    } catch {
      return false;
    }
  }, opts.timeoutMs ?? 60_000);
  if (!ready) {
    killGroup(pid, "SIGKILL");
    throw new Error(`the DASH source did not come up: ${err}`);
  }
  return {
    dir: out,
    pid,
    pause: () => killGroup(pid, "SIGSTOP"),
    resume: () => killGroup(pid, "SIGCONT"),
    async stop() {
      killGroup(pid, "SIGCONT");
      killGroup(pid, "SIGTERM");
      const t = setTimeout(() => killGroup(pid, "SIGKILL"), 3_000);
      await exited;
      clearTimeout(t);
    },
  };
}

export interface SeenRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

export interface Origin {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** The last requests (bounded), oldest first. */
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".mpd": "application/dash+xml",
  ".m4s": "video/iso.segment",
  ".mp4": "video/mp4",
};

/** Serve files under `root` on 127.0.0.1 (GET only, 404 for anything missing). */
export async function startOrigin(root: string): Promise<Origin> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/");
    requests.push({ path, headers: req.headers });
    if (requests.length > 500) requests.shift();
    const file = normalize(join(root, path));
    if (!file.startsWith(root + sep)) {
      res.writeHead(400).end();
      return;
    }
    try {
      const st = statSync(file);
      if (!st.isFile()) throw new Error("not a file");
      res.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "content-length": st.size,
        "cache-control": "no-cache",
      });
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Poll `check` every 100 ms until it is true or `timeoutMs` passed. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
}
