import type { Egress } from "@svc/core/egress";
import { describeRefusal, openUpstream } from "../dash/fetcher/upstream-fetch.js";
import {
  createPackagerCounters,
  type PackagerCounters,
} from "../dash/scheduler/packager-counters.js";
import { pause } from "../dash/scheduler/rendition-pump.js";
import { egressRelayFetch } from "../hls/egress-fetch.js";
import { PacketReader } from "../ts/packet-reader.js";
import { SegmentCutter, type TsSegment } from "../ts/segment-cutter.js";
import { packetPid } from "../ts/ts-packet.js";
import { createDashFailbackProbe } from "./failover/dash-failback-probe.js";
import { type FailoverReason, reasonOfFetchFailure } from "./failover/failover-reason.js";
import { createHlsFailbackProbe } from "./failover/hls-failback-probe.js";
import {
  failbackProbeEveryMs,
  probeTsSource,
  runFailbackProbes,
} from "./failover/ts-failback-probe.js";
import { TsSlate } from "./failover/ts-slate.js";
import type { Packager, PackagerContext } from "./packager.js";
import { type DashSourceOpener, DashTsRelay } from "./ts/dash-ts-relay.js";
import { HlsTsRelay } from "./ts/hls-ts-relay.js";
import { TsFanout } from "./ts/ts-fanout.js";
import { type TsProgramInfo, TsWindow } from "./ts/ts-window.js";

/** Segment target of the TS engine: cut at the first random-access point at or after it. */
export const TS_SEGMENT_TARGET_SEC = 2;
/** Segments a TS channel keeps and lists, as the DASH engine's rendition windows. */
const WINDOW_SEGMENTS = 10;
/** Extensions "Fallback sources": a TS stream with no bytes for 5 s has failed. */
const DEFAULT_STALL_MS = 5_000;
/** `security.max_playlist_bytes`' default, for an HLS source read without the option. */
const DEFAULT_MAX_PLAYLIST_BYTES = 5 * 1024 * 1024;
/** Longest wait between reconnects. */
const MAX_BACKOFF_MS = 10_000;
/**
 * Extensions "MPEG-TS output": what one `stream.ts` viewer may have queued in the gateway
 * (beyond the kernel's socket buffers) before it is dropped as a slow reader.
 */
export const STREAM_QUEUE_BYTES = 4 * 1024 * 1024;
/** …or may stay behind (more than 64 KiB queued) before it is dropped. */
export const STREAM_BACKLOG_MS = 8_000;
/**
 * What a `stream.ts` relay gives its viewers: the bounds above, and `graceMs`, how long it
 * outlives its last viewer (a player reconnecting).
 */
export const STREAM_RELAY_LIMITS = {
  maxQueuedBytes: STREAM_QUEUE_BYTES,
  maxBacklogMs: STREAM_BACKLOG_MS,
  graceMs: 5_000,
} as const;
/** openUpstream's whole-request deadline: the longest a timer can wait (a live stream has no end). */
const STREAM_DEADLINE_MS = 2 ** 31 - 1;

export interface TsPackagerOptions extends PackagerContext {
  readonly egress: Egress;
  readonly targetSec?: number;
  /** No byte from the source for this long: the connection is dropped and made again. */
  readonly stallMs?: number;
  /** See {@link STREAM_QUEUE_BYTES}. */
  readonly streamQueueBytes?: number;
  /** HLS sources (`hlsSources`): the largest playlist read (`security.max_playlist_bytes`). */
  readonly maxPlaylistBytes?: number;
  /** DASH sources (`dashSources`): the native DASH packager of one source. */
  readonly openDashSource?: DashSourceOpener;
}

/** What one connection has seen so far (the packets' checks of {@link TsPackager.take}). */
interface ConnectionState {
  locked: boolean;
  lastVideoMs: number;
}

/** How one connection to the source ended. */
interface ConnectionEnd {
  readonly why: string;
  /** The first connection's failure: the source is not usable at all (start fails). */
  readonly locked: boolean;
  /** Failover's label for it (docs/failover.md). */
  readonly reason: FailoverReason;
  /** A configuration error (a DASH source's missing key): the session fails, no switch. */
  readonly config?: true;
}

/**
 * The TS engine of a channel with `ingress: ts` (extensions "MPEG-TS ingress"): holds
 * one connection to the source through egress (the channel's headers and user agent,
 * the SSRF guard), cuts the stream into segments (`ts/segment-cutter.ts`) and publishes
 * them in a {@link TsWindow}. An `hls` channel with fallback sources runs here too: each
 * "connection" is then an {@link HlsTsRelay} following the source's playlist and handing
 * its segments' packets over as they are paced out (docs/failover.md). A drop or a stall reconnects with backoff (0.5 s doubling
 * to 10 s) and the next segment carries a discontinuity; the media sequence goes on.
 * `start()` answers once the first connection delivers MPEG-TS, or with the reason it
 * does not (an HTTP status, a refused host, bytes that are not TS).
 */
export class TsPackager implements Packager {
  readonly engine = "native" as const;
  readonly generation: string;
  readonly counters: PackagerCounters = createPackagerCounters();
  readonly publication = undefined;
  readonly tsWindow: TsWindow;
  /** The live packets handed to `stream.ts` viewers (extensions "MPEG-TS output"). */
  readonly fanout: TsFanout;
  packMode: "hls" | undefined;
  lastProgressMs = Date.now();
  isReady = false;
  readonly ready: Promise<void>;
  private markReady!: () => void;
  private readonly stopper = new AbortController();
  private readonly cutter: SegmentCutter;
  private readonly slate: TsSlate | undefined;
  private loop: Promise<void> | undefined;
  private readonly rate = { at: Date.now(), bytes: 0, bps: 0 };
  private verdict!: (r: { ok: true } | { ok: false; message: string }) => void;
  private readonly firstVerdict: Promise<{ ok: true } | { ok: false; message: string }>;

  constructor(private readonly o: TsPackagerOptions) {
    this.generation = o.generation;
    const targetSec = o.targetSec ?? TS_SEGMENT_TARGET_SEC;
    this.cutter = new SegmentCutter({ targetSec });
    this.tsWindow = new TsWindow({
      generation: o.generation,
      maxSegments: WINDOW_SEGMENTS,
      targetSec,
      ...(o.continuity === undefined ? {} : { continuity: o.continuity }),
    });
    this.fanout = new TsFanout({
      joinPoint: () => this.cutter.joinPoint(),
      psi: () => this.cutter.psi(),
      maxQueuedBytes: o.streamQueueBytes ?? STREAM_QUEUE_BYTES,
      maxBacklogMs: STREAM_BACKLOG_MS,
    });
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
    // failover (issue 35): the slate while every source is down, then 502 (play-waits).
    this.slate =
      o.failover && o.slate
        ? new TsSlate({
            height: o.slate.height,
            maxMs: o.slate.maxMs,
            publish: (seg) => this.publish(seg),
            packets: (packets) => {
              this.fanout.discontinuity();
              this.fanout.push(packets);
              this.fanout.discontinuity();
            },
            expired: () =>
              this.o.onFatal(
                `every source down for ${Math.round((o.slate?.maxMs ?? 0) / 1000)} s`,
                "unplayable",
              ),
          })
        : undefined;
    this.firstVerdict = new Promise((resolve) => {
      this.verdict = resolve;
    });
  }

  async start(): Promise<{ ok: true } | { ok: false; message: string }> {
    this.loop = this.run();
    return this.firstVerdict;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.fanout.closeAll("session stopped");
    this.verdict({ ok: false, message: "stopped" });
    this.markReady();
    await this.loop;
  }

  bytesHeld(): number {
    return this.tsWindow.bytesHeld();
  }

  private async run(): Promise<void> {
    let attempt = 0;
    let everLocked = false;
    // failover (issue 35): failback probes while a fallback is active; the slate.
    const failover = this.o.failover;
    const hls = this.o.hlsSources;
    const maxPlaylistBytes = this.o.maxPlaylistBytes ?? DEFAULT_MAX_PLAYLIST_BYTES;
    const probes =
      failover && this.o.slate
        ? runFailbackProbes({
            probe:
              this.o.dashSources !== undefined
                ? createDashFailbackProbe({
                    egress: this.o.egress,
                    channelId: this.o.channelId,
                    maxMpdBytes: maxPlaylistBytes,
                  })
                : hls === undefined
                  ? (source, signal) =>
                      probeTsSource(this.o.egress, this.o.channelId, source, signal)
                  : createHlsFailbackProbe({
                      egress: this.o.egress,
                      channelId: this.o.channelId,
                      preferHeight: hls.preferHeight,
                      maxPlaylistBytes,
                    }),
            failover,
            everyMs: failbackProbeEveryMs(this.o.slate.failbackMs),
            signal: this.stopper.signal,
          })
        : undefined;
    while (!this.stopper.signal.aborted) {
      const end = await this.connection();
      if (this.stopper.signal.aborted) break;
      for (const seg of this.cutter.discontinuity()) this.publish(seg);
      this.fanout.discontinuity();
      if (end.reason === "switched") continue;
      if (end.locked) everLocked = true;
      // A DASH source without its key: a configuration error, as without fallback sources.
      if (end.config) {
        if (everLocked) this.o.onFatal(end.why, "unplayable");
        else this.verdict({ ok: false, message: end.why });
        break;
      }
      // failover (issue 35): the next source at once; every source down: the slate.
      const allDown = failover?.fail(end.reason, end.why) ?? true;
      if (!allDown) {
        this.counters.retries += 1;
        this.o.onError(`${end.why}; switching to source ${failover?.active}`);
        continue;
      }
      if (!everLocked && !end.locked && this.slate === undefined) {
        this.verdict({ ok: false, message: end.why });
        break;
      }
      everLocked = true;
      // failover (issue 35): the slate instead of failing, also before any source played.
      if (this.slate !== undefined) {
        this.verdict({ ok: true });
        this.slate.start();
      }
      attempt = end.locked ? 1 : attempt + 1;
      this.counters.retries += 1;
      this.o.onError(`${end.why}; reconnecting`);
      await pause(Math.min(MAX_BACKOFF_MS, 500 * 2 ** (attempt - 1)), this.stopper.signal);
    }
    this.slate?.stop();
    await probes;
  }

  /** One connection, from the request to its end. */
  private async connection(): Promise<ConnectionEnd | { reason: "switched" }> {
    // failover (issue 35): the active source; a failback ends this connection.
    const source = this.o.failover?.current();
    const url = source?.url ?? this.o.sourceUrl;
    const switcher = new AbortController();
    const stopSwitch = this.o.failover?.onSwitch(() => switcher.abort());
    const signal = AbortSignal.any([this.stopper.signal, switcher.signal]);
    try {
      const end = await this.connectionTo(url, source?.headers ?? this.o.headers, signal);
      return switcher.signal.aborted && !this.stopper.signal.aborted ? { reason: "switched" } : end;
    } finally {
      stopSwitch?.();
    }
  }

  private async connectionTo(
    url: string,
    headers: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ): Promise<ConnectionEnd> {
    if (this.o.dashSources !== undefined && this.o.openDashSource !== undefined)
      return this.mpdConnectionTo(this.o.openDashSource, url, headers, signal);
    if (this.o.hlsSources !== undefined)
      return this.playlistConnectionTo(url, headers, this.o.hlsSources, signal);
    const r = await openUpstream(
      {
        egress: this.o.egress,
        channelId: this.o.channelId,
        headers,
        credentialOrigin: originOf(url),
        signal,
      },
      url,
      STREAM_DEADLINE_MS,
    );
    if (!r.ok) {
      this.counters.fetch_errors += 1;
      const why = r.kind === "refused" ? describeRefusal(url, r.message) : r.message;
      return { why: `source: ${why}`, locked: false, reason: reasonOfFetchFailure(r.kind, why) };
    }
    const reader = new PacketReader();
    const stallMs = this.o.stallMs ?? DEFAULT_STALL_MS;
    let stalled = false;
    const conn: ConnectionState = { locked: false, lastVideoMs: Date.now() };
    const timer = setTimeout(() => {
      stalled = true;
      r.body.destroy();
    }, stallMs);
    const abort = () => r.body.destroy();
    signal.addEventListener("abort", abort, { once: true });
    try {
      for await (const chunk of r.body as AsyncIterable<Buffer>) {
        timer.refresh();
        this.counters.bytes_in += chunk.length;
        const got = reader.push(chunk);
        if (!got.ok)
          return {
            why: `source is not MPEG-TS: ${got.reason}`,
            locked: conn.locked,
            reason: "not_media",
          };
        const end = this.take(got.packets, conn);
        if (end !== undefined) return end;
      }
      if (stalled)
        return {
          why: `source sent no bytes for ${stallMs / 1000} s`,
          locked: conn.locked,
          reason: "no_bytes",
        };
      this.take(reader.flush(), conn);
      const refusal = reader.refusalAtEnd();
      if (refusal !== undefined)
        return {
          why: `source is not MPEG-TS: ${refusal}`,
          locked: conn.locked,
          reason: "not_media",
        };
      return { why: "source ended the stream", locked: conn.locked, reason: "dropped" };
    } catch {
      if (stalled)
        return {
          why: `source sent no bytes for ${stallMs / 1000} s`,
          locked: conn.locked,
          reason: "no_bytes",
        };
      return { why: "source connection dropped", locked: conn.locked, reason: "dropped" };
    } finally {
      signal.removeEventListener("abort", abort);
      clearTimeout(timer);
      r.done();
      r.body.destroy();
    }
  }

  /**
   * An `hls` source (a channel with fallback sources): an {@link HlsTsRelay} in session mode
   * follows its playlist (the variant of `preferHeight`) and hands each paced slice of its
   * segments to {@link take}; it ends at the first failed fetch, a playlist that stopped
   * advancing for three target durations, or the playlist's end.
   */
  private async playlistConnectionTo(
    url: string,
    headers: Readonly<Record<string, string>>,
    hls: { readonly preferHeight: number | null; readonly audioLanguages?: readonly string[] },
    signal: AbortSignal,
  ): Promise<ConnectionEnd> {
    const conn: ConnectionState = { locked: false, lastVideoMs: Date.now() };
    let end: ConnectionEnd | undefined;
    const relay: HlsTsRelay = new HlsTsRelay({
      sourceUrl: url,
      preferHeight: hls.preferHeight,
      ...(hls.audioLanguages === undefined ? {} : { audioLanguages: hls.audioLanguages }),
      fetch: egressRelayFetch(
        this.o.egress,
        { channelId: this.o.channelId, headers, credentialOrigin: originOf(url), signal },
        (bytes) => {
          this.counters.bytes_in += bytes;
        },
      ),
      maxPlaylistBytes: this.o.maxPlaylistBytes ?? DEFAULT_MAX_PLAYLIST_BYTES,
      // Nobody reads the relay's own fan-out: the session's viewers read this.fanout.
      maxQueuedBytes: STREAM_QUEUE_BYTES,
      maxBacklogMs: STREAM_BACKLOG_MS,
      graceMs: 0,
      onStop: () => undefined,
      session: {
        packets: (packets) => {
          if (end !== undefined) return;
          end = this.take(packets, conn);
          if (end !== undefined) relay.stop(end.why, end.reason);
        },
        discontinuity: () => {
          for (const seg of this.cutter.discontinuity()) this.publish(seg);
          this.fanout.discontinuity();
        },
      },
    });
    const abort = () => relay.stop("stopped");
    signal.addEventListener("abort", abort, { once: true });
    try {
      const stopped = await relay.ended;
      if (end !== undefined) return end;
      if (stopped.reason === "http_error" || stopped.reason === "connect_error")
        this.counters.fetch_errors += 1;
      return { why: `source: ${stopped.why}`, locked: conn.locked, reason: stopped.reason };
    } finally {
      signal.removeEventListener("abort", abort);
      relay.stop("stopped");
    }
  }

  /**
   * A `dash` source (a channel with fallback sources): a {@link DashTsRelay} reads it with
   * the native DASH packager and hands its segments, remuxed to MPEG-TS, to {@link take};
   * it ends at the source's first failure (docs/failover.md "DASH channels").
   */
  private async mpdConnectionTo(
    open: DashSourceOpener,
    url: string,
    headers: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ): Promise<ConnectionEnd> {
    const conn: ConnectionState = { locked: false, lastVideoMs: Date.now() };
    let end: ConnectionEnd | undefined;
    const mine = new AbortController();
    let counted = 0;
    const relay: DashTsRelay = new DashTsRelay({
      open,
      source: { url, headers },
      packets: (packets) => {
        if (end !== undefined) return;
        this.counters.bytes_in += relay.bytesIn() - counted;
        counted = relay.bytesIn();
        end = this.take(packets, conn);
        if (end !== undefined) mine.abort();
      },
      discontinuity: () => {
        for (const seg of this.cutter.discontinuity()) this.publish(seg);
        this.fanout.discontinuity();
      },
    });
    const stopped = await relay.run(AbortSignal.any([signal, mine.signal]));
    this.counters.bytes_in += relay.bytesIn() - counted;
    if (end !== undefined) return end;
    if (stopped.reason === "http_error" || stopped.reason === "connect_error")
      this.counters.fetch_errors += 1;
    return {
      why: stopped.why,
      locked: conn.locked,
      reason: stopped.reason,
      ...(stopped.config ? { config: true as const } : {}),
    };
  }

  /**
   * Packets of the current connection: the first ones settle the start (and end the slate);
   * with failover, a source that sends no video packet for the stall time has failed (the
   * end answered); then they are cut into segments and fanned out to `stream.ts` viewers.
   */
  private take(packets: Buffer[], conn: ConnectionState): ConnectionEnd | undefined {
    if (packets.length > 0 && !conn.locked) {
      conn.locked = true;
      this.verdict({ ok: true });
      this.slate?.stop();
      this.o.failover?.delivering();
    }
    if (this.o.failover !== undefined) {
      const stallMs = this.o.stallMs ?? DEFAULT_STALL_MS;
      const now = Date.now();
      const pid = this.cutter.videoPid;
      if (pid < 0 || packets.some((p) => packetPid(p) === pid)) conn.lastVideoMs = now;
      else if (now - conn.lastVideoMs > stallMs)
        return {
          why: `source sent no video for ${stallMs / 1000} s`,
          locked: conn.locked,
          reason: "no_video",
        };
    }
    for (const seg of this.cutter.push(packets)) this.publish(seg);
    // After the cutter: a viewer joining now finds these packets in its join point.
    this.fanout.push(packets);
    return undefined;
  }

  private publish(seg: TsSegment): void {
    const s = this.tsWindow.add(seg);
    this.counters.segments_published += 1;
    this.counters.media_sequence = s.msn;
    this.counters.bytes_held = this.tsWindow.bytesHeld();
    this.lastProgressMs = Date.now();
    if (!this.isReady) {
      this.isReady = true;
      this.packMode = "hls";
      this.markReady();
    }
  }

  /** RFC 6381 CODECS of the source's program, once its PMT and SPS were read. */
  get codecs(): string | undefined {
    return this.cutter.codecs;
  }

  /**
   * Extra `packager` fields of a TS session in `/v1/status` (additive): `stream_viewers`
   * (`stream.ts` viewers attached now) and `input_bps` (bits per second read from the
   * source, averaged since the previous reading at least 2 s ago).
   */
  statusExtra(): { stream_viewers: number; input_bps: number } {
    const now = Date.now();
    const r = this.rate;
    if (now - r.at >= 2000) {
      r.bps = Math.round(((this.counters.bytes_in - r.bytes) * 8 * 1000) / (now - r.at));
      r.at = now;
      r.bytes = this.counters.bytes_in;
    }
    return { stream_viewers: this.fanout.size, input_bps: r.bps };
  }

  /** What the master playlist says of the program: CODECS and RESOLUTION when read. */
  tsProgram(): TsProgramInfo {
    const size = this.cutter.pictureSize;
    const codecs = this.cutter.codecs;
    return { ...(codecs === undefined ? {} : { codecs }), ...(size ?? {}) };
  }
}

function originOf(url: string): string {
  return new URL(url).origin;
}
