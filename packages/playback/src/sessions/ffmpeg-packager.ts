import type { Egress, EgressProxy } from "@svc/core/egress";
import type { KeyTable } from "../cenc/kid.js";
import { describeRefusal, type FetchContext, fetchBytes } from "../dash/fetcher/upstream-fetch.js";
import {
  inspectionOfParseError,
  inspectNativeSupport,
} from "../dash/inspection/native-inspection.js";
import { checkSessionStart, type StartFailureCause } from "../dash/inspection/start-check.js";
import { parseMpd } from "../dash/manifest/mpd-parser.js";
import {
  createPackagerCounters,
  type PackagerCounters,
} from "../dash/scheduler/packager-counters.js";
import type { SelectionPreferences } from "../dash/selection/representation-choice.js";
import type { HlsOutputOptions } from "./ffmpeg/ffmpeg-args.js";
import { chooseFfmpegKey } from "./ffmpeg/ffmpeg-key.js";
import { ffmpegLayout } from "./ffmpeg/ffmpeg-layout.js";
import type { FfmpegSessionStatus, SupervisionOptions } from "./ffmpeg/ffmpeg-session-types.js";
import { type FfmpegSession, startFfmpegSession } from "./ffmpeg/ffmpeg-supervisor.js";
import type { Packager, PackagerContext } from "./packager.js";
import { checkTsSource } from "./ts/ts-source-check.js";

/** What the compatibility engine needs besides one generation's {@link PackagerContext}. */
export interface FfmpegEngineOptions {
  readonly egress: Egress;
  /** `media.ffmpeg_path`. */
  readonly ffmpegPath: string;
  /** `server.data_dir`: session folders and pidfiles live under `sessions/`. */
  readonly dataDir: string;
  /** `security.max_playlist_bytes`: ceiling of the MPD read for the key choice. */
  readonly maxMpdBytes: number;
  /** The channel's content keys (its `keys` over `media.keys`, see `channelKeyTable`). */
  keys(channelId: string): KeyTable;
  /** The channel's `prefer_height` and `preferred_audio_languages`. */
  prefs?(channelId: string): SelectionPreferences;
  /**
   * The loopback egress proxy every request of ffmpeg goes through, so the SSRF guard
   * covers ffmpeg's fetches too; it also adds the channel's headers (none on ffmpeg's argv).
   */
  readonly egressProxy?: Pick<EgressProxy, "url" | "admit">;
  readonly output?: HlsOutputOptions;
  readonly supervision?: SupervisionOptions;
  /**
   * `ts`: the source is a continuous MPEG-TS (`ingress: ts`, extensions "MPEG-TS
   * ingress"): no MPD is read, the bytes are checked as TS first, ffmpeg maps its
   * default choice and writes TS segments. Default `dash`.
   */
  readonly sourceFormat?: "dash" | "ts";
}

/**
 * The ffmpeg compatibility engine as a session {@link Packager}: it reads the MPD once
 * through the egress guard (the SSRF check of the source, and the KIDs for the one key
 * ffmpeg takes), then runs a supervised ffmpeg (`ffmpeg-supervisor.ts`) that writes HLS
 * into `{data_dir}/sessions/<channel>/<generation>/`, served by the `live/{file}` route.
 * Ready once ffmpeg wrote its first playlist; every ffmpeg exit is reported as an error
 * with the tail of its stderr (secrets scrubbed); when the supervisor gives up the
 * session restarts the packager with its own backoff.
 */
export class FfmpegPackager implements Packager {
  readonly engine = "ffmpeg" as const;
  readonly counters: PackagerCounters = createPackagerCounters();
  readonly publication = undefined;
  readonly packMode = "hls" as const;
  readonly ready: Promise<void>;
  isReady = false;
  private session: FfmpegSession | undefined;
  private readonly abort = new AbortController();
  private readyResolve: (() => void) | undefined;
  private progressMark = -1;
  private progressAt = Date.now();

  constructor(
    private readonly ctx: PackagerContext,
    private readonly o: FfmpegEngineOptions,
  ) {
    this.ready = new Promise((resolve) => {
      this.readyResolve = resolve;
    });
  }

  get generation(): string {
    return this.ctx.generation;
  }

  /** The session folder ffmpeg writes into; undefined before start. */
  get folder(): string | undefined {
    return this.session?.dir;
  }

  /** Moves whenever ffmpeg's output position does (polled by the session's stall tick). */
  get lastProgressMs(): number {
    const out = this.session?.outTimeMs ?? -1;
    if (out !== this.progressMark) {
      this.progressMark = out;
      this.progressAt = Date.now();
    }
    return this.progressAt;
  }

  async start(): Promise<{ ok: true } | { ok: false; message: string; cause?: StartFailureCause }> {
    if (this.o.sourceFormat === "ts") return this.startTs();
    const { ctx, o } = this;
    const mpd = await fetchBytes(this.fetchContext(), ctx.sourceUrl, {
      maxBytes: o.maxMpdBytes,
      deadlineMs: 15_000,
    });
    if (!mpd.ok && mpd.kind === "refused")
      return {
        ok: false,
        message: `MPD: ${describeRefusal(ctx.sourceUrl, mpd.message)}`,
        cause: "refused",
      };
    if (!mpd.ok) return { ok: false, message: `MPD: ${mpd.message}` };
    this.counters.mpd_refreshes += 1;
    const parsed = parseMpd(mpd.bytes, { url: mpd.url });
    if (parsed.ok) {
      // Issue 30 item 10: ffmpeg is not started for a source it could only fail on
      // (an address the guard refuses, nothing to publish); what our parser cannot
      // read is left to ffmpeg's own reader.
      const checked = await checkSessionStart(
        o.egress,
        parsed.value,
        Date.now(),
        o.prefs?.(ctx.channelId) ?? {},
      );
      if (!checked.ok) return { ok: false, message: checked.message, cause: checked.cause };
      if (this.abort.signal.aborted) return { ok: false, message: "stopped" };
    }
    const inspection = parsed.ok
      ? inspectNativeSupport(parsed.value)
      : inspectionOfParseError(parsed.error);
    // An MPD our parser cannot read may still be one ffmpeg's reader can: default choice.
    const layout = parsed.ok
      ? ffmpegLayout(parsed.value, o.prefs?.(ctx.channelId) ?? {})
      : undefined;
    const key = chooseFfmpegKey(inspection, o.keys(ctx.channelId));
    if (!key.ok) return { ok: false, message: key.error };
    const started = await startFfmpegSession({
      ffmpegPath: o.ffmpegPath,
      dataDir: o.dataDir,
      channelId: ctx.channelId,
      generation: ctx.generation,
      source: {
        url: mpd.url,
        headers: ctx.headers,
        // Without the proxy only argv can carry the key (tools and tests run that way).
        ...(key.value === undefined || o.egressProxy !== undefined
          ? {}
          : { decryptionKey: key.value }),
      },
      ...(o.egressProxy === undefined ? {} : { egressProxy: o.egressProxy }),
      // Behind the proxy ffmpeg gets clear media: the proxy decrypts with the channel's keys.
      ...(key.value === undefined || o.egressProxy === undefined
        ? {}
        : { decryption: o.keys(ctx.channelId) }),
      sourceOrigin: new URL(ctx.sourceUrl).origin,
      ...(o.output ? { output: o.output } : {}),
      ...(layout === undefined ? {} : { layout }),
      ...(o.supervision ? { supervision: o.supervision } : {}),
    });
    if (!started.ok) return { ok: false, message: started.error };
    this.follow(started.value);
    return { ok: true };
  }

  /** A `ts` channel: the source checked as MPEG-TS through egress, then ffmpeg over it. */
  private async startTs(): Promise<{ ok: true } | { ok: false; message: string }> {
    const { ctx, o } = this;
    const checked = await checkTsSource(this.fetchContext(), ctx.sourceUrl);
    if (!checked.ok) return checked;
    if (this.abort.signal.aborted) return { ok: false, message: "stopped" };
    const started = await startFfmpegSession({
      ffmpegPath: o.ffmpegPath,
      dataDir: o.dataDir,
      channelId: ctx.channelId,
      generation: ctx.generation,
      source: { url: ctx.sourceUrl, headers: ctx.headers },
      ...(o.egressProxy === undefined ? {} : { egressProxy: o.egressProxy }),
      sourceOrigin: new URL(ctx.sourceUrl).origin,
      // The native TS engine's shape: MPEG-TS segments (the source's codecs copied).
      output: { ...o.output, segmentType: "mpegts" },
      ...(o.supervision ? { supervision: o.supervision } : {}),
    });
    if (!started.ok) return { ok: false, message: started.error };
    this.follow(started.value);
    return { ok: true };
  }

  /** The source's upstream requests: the channel's headers, stopped with the session. */
  private fetchContext(): FetchContext {
    const { channelId, headers } = this.ctx;
    return { egress: this.o.egress, channelId, headers, signal: this.abort.signal };
  }

  /** Follows a started ffmpeg session: ready at its first playlist, every exit reported. */
  private follow(session: FfmpegSession): void {
    this.session = session;
    session.on("state", (s) => this.onState(s));
    session.on("exit", (exit) => {
      if (this.abort.signal.aborted) return;
      this.counters.retries += 1;
      const how = exit.signal === null ? `code ${exit.code}` : `signal ${exit.signal}`;
      const refusal = session.lastRefusal === null ? "" : `; ${session.lastRefusal}`;
      const message = `ffmpeg exited (${how})${refusal}${lastLines(session.status().last_error)}`;
      // Issue 12 item 3: a source that fails before anything was published (refused by the
      // egress guard, 404, not DASH) fails the session at once, so play requests get a
      // clear error instead of waiting out the start timeout; the session's own backoff
      // restarts it. After the first publication a run's exit is only counted.
      if (this.isReady) this.ctx.onError(message);
      else this.ctx.onFatal(message);
    });
    this.onState(session.status());
  }

  private onState(s: FfmpegSessionStatus): void {
    if (s.state === "running" && !this.isReady) {
      this.isReady = true;
      this.readyResolve?.();
    }
    if (s.state === "failed" && !this.abort.signal.aborted)
      this.ctx.onFatal(`ffmpeg failed${lastLines(s.last_error)}`);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.readyResolve?.();
    await this.session?.stop();
  }

  bytesHeld(): number {
    return 0;
  }
}

/** The last lines of a scrubbed stderr tail, for a one-line `last_error`. */
function lastLines(tail: string | null): string {
  if (!tail) return "";
  const lines = tail
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  return lines.length === 0 ? "" : `: ${lines.slice(-3).join(" | ").slice(-600)}`;
}
