import { execFile } from "node:child_process";
import { ffmpegEnvironment } from "./ffmpeg-args.js";

/** Whether ffmpeg is runnable (for `/readyz`). */
export type FfmpegStatus = { ok: true; version: string } | { ok: false; reason: string };

/** Run `<path> -version` once; never throws. */
export function probeFfmpegVersion(path: string, timeoutMs: number): Promise<FfmpegStatus> {
  return new Promise((resolve) => {
    execFile(
      path,
      ["-hide_banner", "-version"],
      {
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 256 * 1024,
        windowsHide: true,
        // Short-lived, but as readable in /proc as any ffmpeg: no gateway variable either.
        env: ffmpegEnvironment(process.env),
      },
      (err, stdout) => {
        if (err !== null) {
          const e = err as NodeJS.ErrnoException & { killed?: boolean };
          const reason = e.killed
            ? `ffmpeg -version did not answer within ${timeoutMs} ms`
            : typeof e.code === "string"
              ? `cannot run ffmpeg (${e.code})`
              : `ffmpeg -version exited with status ${String(e.code)}`;
          resolve({ ok: false, reason });
          return;
        }
        const m = /^ffmpeg version (\S+)/m.exec(stdout);
        resolve(
          m?.[1] === undefined
            ? { ok: false, reason: "the program does not identify itself as ffmpeg" }
            : { ok: true, version: m[1] },
        );
      },
    );
  });
}

/**
 * A checker that caches each path's answer for `ttlMs` (readiness probes arrive every few
 * seconds; ffmpeg need not be spawned for each) and shares one probe between concurrent
 * callers.
 */
export function createFfmpegChecker(opts: { ttlMs?: number; timeoutMs?: number } = {}) {
  const ttlMs = opts.ttlMs ?? 10_000;
  const timeoutMs = opts.timeoutMs ?? 3_000;
  const cache = new Map<string, { at: number; result: Promise<FfmpegStatus> }>();
  return (path: string): Promise<FfmpegStatus> => {
    const hit = cache.get(path);
    if (hit !== undefined && Date.now() - hit.at < ttlMs) return hit.result;
    const result = probeFfmpegVersion(path, timeoutMs);
    cache.set(path, { at: Date.now(), result });
    if (cache.size > 16) cache.delete(cache.keys().next().value as string);
    return result;
  };
}

/**
 * `checkFfmpeg(config.media.ffmpeg_path)`: `{ok:true, version}` or `{ok:false, reason}`,
 * cached for 10 s per path, 3 s timeout.
 * @example const s = await checkFfmpeg("ffmpeg"); // { ok: true, version: "5.1.9-0+deb12u1" }
 */
export const checkFfmpeg = createFfmpegChecker();
