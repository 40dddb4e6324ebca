import { type ChildProcess, spawn } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { chmod, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { decryptingRewrite } from "./decrypting-relay.js";
import {
  buildFfmpegArgs,
  describeArgs,
  type FfmpegSource,
  ffmpegEnvironment,
  mediaPlaylistName,
  PLAYLIST_NAME,
  proxiedHeaders,
  removeOldRunFiles,
  variantCount,
} from "./ffmpeg-args.js";
import { type FfmpegProgress, foldProgressLine } from "./ffmpeg-progress.js";
import type {
  FfmpegExit,
  FfmpegSessionOptions,
  FfmpegSessionState,
  FfmpegSessionStatus,
} from "./ffmpeg-session-types.js";
import { removePidfile, writePidfile } from "./pidfile.js";
import { signalGroup, terminateGroup } from "./process-group.js";
import {
  type BackoffPolicy,
  DEFAULT_BACKOFF,
  failuresAfterRun,
  restartDelayMs,
} from "./restart-backoff.js";
import { createScrubber, keySpellings } from "./secret-scrubber.js";
import { sessionDir, sessionsRoot } from "./session-paths.js";
import { registerSession, type StoppableSession, unregisterSession } from "./shutdown-registry.js";
import { StderrTail } from "./stderr-tail.js";

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Events: `state` on every state change, `exit` after each ffmpeg run ends. */
export interface FfmpegSessionEvents {
  state: [FfmpegSessionStatus];
  exit: [FfmpegExit];
}

/**
 * One supervised ffmpeg writing HLS for one channel generation. Create it with
 * {@link startFfmpegSession}; read {@link status}; end it with {@link stop}.
 */
export class FfmpegSession extends EventEmitter<FfmpegSessionEvents> implements StoppableSession {
  readonly dir: string;
  /** The master playlist (`index.m3u8`). */
  readonly masterPath: string;
  /** The first media playlist (`media-0.m3u8`: the video, or the only variant). */
  readonly playlistPath: string;
  /** Every media playlist a run writes; the run is `running` once all are written. */
  readonly #mediaPaths: readonly string[];
  readonly #opts: FfmpegSessionOptions;
  readonly #policy: BackoffPolicy;
  readonly #tail: StderrTail;
  readonly #scrub: (text: string) => string;
  readonly #startedAt = Date.now();
  #state: FfmpegSessionState = "starting";
  #child: ChildProcess | undefined;
  #pid: number | null = null;
  #pidfile: string | undefined;
  #runs = 0;
  #failures = 0;
  #stalls = 0;
  #runStartedAt = 0;
  #lastLifeAt = 0;
  #runningSince: number | null = null;
  #progress: FfmpegProgress = { outTimeMs: 0, totalBytes: 0 };
  #lastExit: FfmpegExit | null = null;
  #nextRestartAt: number | null = null;
  #restartTimer: NodeJS.Timeout | undefined;
  #tick: NodeJS.Timeout | undefined;
  #tickBusy = false;
  #command: readonly string[] = [];
  #revoke: (() => void) | undefined;
  #refusal: string | null = null;
  #stopping: Promise<void> | undefined;

  constructor(opts: FfmpegSessionOptions, dir: string) {
    super();
    this.#opts = opts;
    this.dir = dir;
    this.masterPath = join(dir, PLAYLIST_NAME);
    this.#mediaPaths = Array.from({ length: variantCount(opts.layout?.streams) }, (_, i) =>
      join(dir, mediaPlaylistName(i)),
    );
    this.playlistPath = this.#mediaPaths[0] ?? join(dir, mediaPlaylistName(0));
    this.#policy = { ...DEFAULT_BACKOFF, ...opts.supervision?.backoff };
    const src = opts.source;
    const secrets = [
      ...(src.decryptionKey === undefined ? [] : keySpellings(src.decryptionKey)),
      ...Object.values(src.headers ?? {}),
    ];
    this.#scrub = createScrubber(secrets);
    this.#tail = new StderrTail(this.#scrub);
  }

  /** A snapshot of state and counters, safe to serialise (no secret in it). */
  status(): FfmpegSessionStatus {
    return {
      state: this.#state,
      pid: this.#pid,
      dir: this.dir,
      playlist: PLAYLIST_NAME,
      started_at: iso(this.#startedAt),
      running_since: this.#runningSince === null ? null : iso(this.#runningSince),
      runs: this.#runs,
      restarts: Math.max(0, this.#runs - 1),
      consecutive_failures: this.#failures,
      stalls: this.#stalls,
      next_restart_at: this.#nextRestartAt === null ? null : iso(this.#nextRestartAt),
      last_exit: this.#lastExit,
      out_time_ms: this.#progress.outTimeMs,
      last_error: this.#tail.text(),
      command: this.#command,
    };
  }

  /**
   * The last target of this session the egress guard refused, if any (ffmpeg's own log says
   * only "403 Forbidden", often naming the MPD instead of the refused segment URL).
   */
  get lastRefusal(): string | null {
    return this.#refusal;
  }

  /** Output position of the current run, from `-progress` (cheap: no status snapshot). */
  get outTimeMs(): number {
    return this.#progress.outTimeMs;
  }

  currentPid(): number | null {
    return this.#pid;
  }

  /**
   * For a gateway that exits without stopping (`process.exit`, an uncaught error): SIGKILL
   * the group and drop the pidfile, synchronously. The kernel reaps the child with us.
   */
  killNow(): void {
    if (this.#pid !== null) signalGroup(this.#pid, "SIGKILL");
    if (this.#pidfile !== undefined) removePidfile(this.#pidfile);
  }

  /**
   * Stop for good: SIGTERM the process group, SIGKILL after the grace period, wait until
   * the child is reaped, remove the pidfile and (unless `removeOutput: false`) the folder.
   * Idempotent; the first call's options win.
   */
  stop(opts: { removeOutput?: boolean } = {}): Promise<void> {
    this.#stopping ??= this.#stop(opts.removeOutput ?? true);
    return this.#stopping;
  }

  async #stop(removeOutput: boolean): Promise<void> {
    clearTimeout(this.#restartTimer);
    this.#nextRestartAt = null;
    this.#setState("stopping");
    const child = this.#child;
    if (child !== undefined && this.#pid !== null) {
      const exited =
        child.exitCode === null && child.signalCode === null ? once(child, "exit") : undefined;
      await terminateGroup(this.#pid, this.#opts.supervision?.stopGraceMs ?? 3_000);
      await exited;
    }
    clearInterval(this.#tick);
    if (this.#pidfile !== undefined) removePidfile(this.#pidfile);
    if (removeOutput) await rm(this.dir, { recursive: true, force: true });
    unregisterSession(this);
    this.#setState("stopped");
  }

  /** Spawn run number `#runs`; called once at start and after each restart delay. */
  spawnRun(): void {
    if (this.#stopping !== undefined || this.#child !== undefined) return;
    const run = this.#runs;
    const built = buildFfmpegArgs(
      runSource(this.#opts),
      this.dir,
      run,
      this.#opts.output,
      this.#opts.layout?.streams,
    );
    if (!built.ok) {
      this.#fail(built.error);
      return;
    }
    this.#runs += 1;
    this.#nextRestartAt = null;
    this.#command = describeArgs(built.value, this.#scrub);
    void removeOldRunFiles(this.dir, run);
    const child = spawn(this.#opts.ffmpegPath, built.value, {
      detached: true, // own process group: stop() can kill ffmpeg and anything it starts
      stdio: ["ignore", "pipe", "pipe"],
      // PATH and LANG only: no gateway secret in /proc/<pid>/environ, no no_proxy.
      env: ffmpegEnvironment(process.env),
    });
    this.#refusal = null; // a refusal names this run's cause, not an earlier one's
    if (child.pid !== undefined && this.#opts.egressProxy !== undefined) {
      // Admitted before the event loop can serve its first proxy connection; revoked on exit.
      this.#revoke = this.#opts.egressProxy.admit(child.pid, {
        channelId: this.#opts.channelId,
        headers: proxiedHeaders(this.#opts.source),
        ...(this.#opts.sourceOrigin === undefined ? {} : { origin: this.#opts.sourceOrigin }),
        onRefused: (target, reason) => {
          this.#refusal = `the egress guard refused ${target}: ${reason}`;
        },
        ...(this.#opts.decryption === undefined
          ? {}
          : { rewrite: decryptingRewrite(this.#opts.decryption) }),
      });
    }
    this.#child = child;
    this.#runStartedAt = Date.now();
    this.#lastLifeAt = this.#runStartedAt;
    this.#runningSince = null;
    this.#progress = { outTimeMs: 0, totalBytes: 0 };
    child.once("error", (err: NodeJS.ErrnoException) => {
      // Without a pid the spawn itself failed (ENOENT, EACCES): restarting cannot help.
      if (child.pid === undefined) this.#fail(`cannot run ffmpeg: ${err.code ?? err.message}`);
    });
    if (child.pid === undefined) return;
    this.#pid = child.pid;
    try {
      this.#pidfile = writePidfile(this.#opts.dataDir, {
        pid: child.pid,
        dir: this.dir,
        channel: this.#opts.channelId,
        generation: String(this.#opts.generation),
        started_at: iso(this.#runStartedAt),
      });
    } catch (err) {
      // An ffmpeg without a pidfile could outlive a crashed gateway unnoticed: do not run it.
      signalGroup(child.pid, "SIGKILL");
      this.#fail(`cannot write the pidfile (${(err as NodeJS.ErrnoException).code ?? "error"})`);
      return;
    }
    child.stderr?.setEncoding("utf8").on("data", (d: string) => this.#tail.push(d));
    let pending = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      const lines = (pending + d).split("\n");
      pending = (lines.pop() ?? "").slice(-256);
      for (const line of lines) this.#onProgressLine(line);
    });
    child.once("exit", (code, signal) => this.#onExit(child, code, signal));
    this.#tick ??= setInterval(() => void this.#watchdog(), this.#opts.supervision?.tickMs ?? 500);
    this.#tick.unref();
    this.#setState("starting");
  }

  #onProgressLine(line: string): void {
    const { progress, advanced } = foldProgressLine(this.#progress, line);
    this.#progress = progress;
    if (!advanced) return;
    this.#lastLifeAt = Date.now();
    if (this.#state === "stalled") this.#setState("running");
  }

  async #watchdog(): Promise<void> {
    if (this.#tickBusy || this.#child === undefined || this.#pid === null) return;
    this.#tickBusy = true;
    try {
      const s = this.#opts.supervision ?? {};
      const now = Date.now();
      const idle = now - this.#lastLifeAt;
      if (this.#state === "starting") {
        const written = (
          await Promise.all(
            this.#mediaPaths.map((path) =>
              stat(path).then(
                (st) => st.mtimeMs >= this.#runStartedAt - 1,
                () => false,
              ),
            ),
          )
        ).every(Boolean);
        if (written && this.#state === "starting") {
          this.#runningSince = Date.now();
          this.#setState("running");
        } else if (idle > (s.startTimeoutMs ?? 30_000)) {
          this.#killRun(`no progress and no playlist within ${seconds(idle)}; restarting ffmpeg`);
        }
      } else if (this.#state === "running" && idle > (s.stallMs ?? 10_000)) {
        this.#stalls += 1;
        this.#setState("stalled");
      } else if (this.#state === "stalled" && idle > (s.stallRestartMs ?? 30_000)) {
        this.#killRun(`no progress for ${seconds(idle)}; restarting ffmpeg`);
      }
    } finally {
      this.#tickBusy = false;
    }
  }

  /** Watchdog kill: the exit handler then schedules the restart like any other exit. */
  #killRun(note: string): void {
    const pid = this.#pid;
    if (pid === null) return;
    this.#tail.note(`[gateway] ${note}`);
    this.#lastLifeAt = Date.now(); // one kill per stall
    void terminateGroup(pid, this.#opts.supervision?.stopGraceMs ?? 3_000);
  }

  #onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.#child) return;
    const pid = this.#pid;
    this.#pid = null;
    this.#child = undefined;
    this.#revoke?.();
    this.#revoke = undefined;
    if (pid !== null) signalGroup(pid, "SIGKILL"); // anything ffmpeg left in its group
    if (this.#pidfile !== undefined) removePidfile(this.#pidfile);
    this.#pidfile = undefined;
    this.#tail.end();
    const now = Date.now();
    const exit: FfmpegExit = { code, signal, at: iso(now), run_ms: now - this.#runStartedAt };
    this.#lastExit = exit;
    this.emit("exit", exit);
    if (this.#stopping !== undefined) return;
    this.#failures = failuresAfterRun(this.#policy, this.#failures, exit.run_ms);
    const how = signal === null ? `code ${code}` : `signal ${signal}`;
    if (this.#failures >= this.#policy.maxConsecutiveFailures) {
      this.#fail(`ffmpeg exited (${how}) ${this.#failures} times in a row; giving up`);
      return;
    }
    const delay = restartDelayMs(this.#policy, this.#failures);
    this.#tail.note(
      `[gateway] ffmpeg exited (${how}) after ${seconds(exit.run_ms)}; restart in ${seconds(delay)}`,
    );
    this.#nextRestartAt = now + delay;
    this.#restartTimer = setTimeout(() => this.spawnRun(), delay);
    this.#setState("starting");
  }

  #fail(reason: string): void {
    this.#tail.note(`[gateway] ${reason}`);
    this.#nextRestartAt = null;
    this.#child = undefined;
    this.#pid = null;
    clearInterval(this.#tick);
    this.#tick = undefined;
    this.#setState("failed");
  }

  #setState(next: FfmpegSessionState): void {
    const changed = next !== this.#state;
    this.#state = next;
    if (changed || next === "starting") this.emit("state", this.status());
  }
}

/** The source as ffmpeg's argv sees it: the egress proxy's URL filled in. */
function runSource(opts: FfmpegSessionOptions): FfmpegSource {
  const proxy = opts.egressProxy;
  return proxy === undefined ? opts.source : { ...opts.source, httpProxy: proxy.url };
}

/**
 * Create the session folder `{data_dir}/sessions/<channel>/<generation>/` and start ffmpeg
 * in it. Expected failures (a bad id or generation, an unsendable header, a folder that
 * cannot be created) come back as values; a missing ffmpeg binary shows as state `failed`.
 * @example
 * const r = await startFfmpegSession({ ffmpegPath: config.media.ffmpeg_path, dataDir, channelId: "news",
 *   generation: 3, source: { url: mpdUrl, headers: channel.headers, userAgent: channel.user_agent } });
 * if (r.ok) r.value.on("state", (s) => log.info({ channel: "news", state: s.state }));
 */
export async function startFfmpegSession(
  opts: FfmpegSessionOptions,
): Promise<{ ok: true; value: FfmpegSession } | { ok: false; error: string }> {
  const dir = sessionDir(opts.dataDir, opts.channelId, opts.generation);
  if (!dir.ok) return dir;
  const check = buildFfmpegArgs(runSource(opts), dir.value, 0, opts.output, opts.layout?.streams);
  if (!check.ok) return check;
  if (opts.decryption !== undefined && opts.egressProxy === undefined)
    return {
      ok: false,
      error: "decryption keys are applied by the egress proxy, and there is none",
    };
  try {
    // Owner only (issue 12 item 8): the folder holds decrypted media and ffmpeg's logs.
    // `mode` applies to folders mkdir creates; ones left by an older version are tightened.
    await mkdir(dir.value, { recursive: true, mode: 0o700 });
    for (let d = dir.value; d.startsWith(sessionsRoot(opts.dataDir)); d = dirname(d))
      await chmod(d, 0o700);
    if (opts.layout !== undefined) {
      // The master stays for the session's life: the media playlist names do not change
      // across runs. Written whole (temp + rename): serveSessionFile never sees half of it.
      const tmp = join(dir.value, `${PLAYLIST_NAME}.tmp`);
      await writeFile(tmp, opts.layout.master, { mode: 0o640 });
      await rename(tmp, join(dir.value, PLAYLIST_NAME));
    }
  } catch (err) {
    return {
      ok: false,
      error: `cannot create the session folder (${(err as NodeJS.ErrnoException).code})`,
    };
  }
  const session = new FfmpegSession(opts, dir.value);
  registerSession(session);
  session.spawnRun();
  return { ok: true, value: session };
}
