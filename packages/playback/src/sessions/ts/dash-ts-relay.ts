import type { PackagerStart } from "../../dash/native-packager.js";
import type { ChannelPublication } from "../../dash/publisher/channel-publication.js";
import type { MpdSnapshot } from "../../dash/scheduler/rendition-pump.js";
import {
  frozenBeforeOpenMs,
  newestSegmentOf,
  stallLimitMs,
} from "../failover/dash-failback-probe.js";
import { type FailoverReason, reasonOfFetchFailure } from "../failover/failover-reason.js";
import { Fmp4TsRelay } from "./fmp4-ts-relay.js";

/** What the relay needs of the native DASH packager reading one source (`NativePackager`). */
export interface DashSourceReader {
  start(): Promise<PackagerStart>;
  stop(): Promise<void>;
  readonly publication: ChannelPublication | undefined;
  readonly mpdInUse: MpdSnapshot | undefined;
  readonly counters: { readonly bytes_in: number };
}

/**
 * Opens the native DASH packager of one source of the channel (its URL and headers, the
 * channel's keys and preferences; built by the session manager), reporting to `hooks`.
 */
export type DashSourceOpener = (
  source: { readonly url: string; readonly headers: Readonly<Record<string, string>> },
  hooks: { onError(message: string): void; onFatal(message: string): void },
) => DashSourceReader;

/** How a DASH source's reading ended, with failover's label for it. */
export interface DashRelayEnd {
  readonly why: string;
  readonly reason: FailoverReason;
  /** A configuration error (a missing ClearKey key): the session fails, no switch. */
  readonly config?: true;
}

/** How often the relay looks at the source's MPD and its newest segment. */
const WATCH_MS = 500;
/** Nobody reads the remuxer's own fan-out: the session's viewers read the engine's. */
const UNUSED_QUEUE_BYTES = 1 << 20;

/**
 * A `dash` source of a channel with fallback sources, as the input of the TS engine
 * (extensions "Fallback sources and the slate", docs/failover.md): the native DASH
 * packager reads the source (MPD refresh, one video and one audio Representation, ClearKey
 * CENC decrypted by its fragment transform) into an in-memory publication that nobody
 * plays; {@link Fmp4TsRelay} remuxes its `v0` and `a0` segments to one MPEG-TS program and
 * hands each packet to `packets`. {@link run} answers at the source's first failure: an MPD
 * or segment fetch that fails (`http_error`, `connect_error`), an MPD or segment it cannot
 * read or an MPD that is or turns static (`not_media`), the newest segment the MPD lists not
 * advancing for three segment durations (or three `minimumUpdatePeriod`s when longer:
 * `stalled`).
 * A missing key answers `config` (no switch).
 */
export class DashTsRelay {
  constructor(
    private readonly o: {
      readonly open: DashSourceOpener;
      readonly source: { readonly url: string; readonly headers: Readonly<Record<string, string>> };
      packets(packets: Buffer[]): void;
      discontinuity(): void;
    },
  ) {}

  private reader: DashSourceReader | undefined;

  /** Bytes read from the source so far (MPDs, init sections, segments). */
  bytesIn(): number {
    return this.reader?.counters.bytes_in ?? 0;
  }

  /** Reads the source until it fails or `signal` aborts; answers why it ended. */
  async run(signal: AbortSignal): Promise<DashRelayEnd> {
    let end: DashRelayEnd | undefined;
    let settle!: (e: DashRelayEnd) => void;
    const ended = new Promise<DashRelayEnd>((resolve) => {
      settle = resolve;
    });
    const finish = (e: DashRelayEnd) => {
      if (end !== undefined) return;
      end = e;
      settle(e);
    };
    // Trouble reported while start() runs (the UTCTiming clock) is start()'s to judge.
    let started = false;
    const reader = this.o.open(this.o.source, {
      onError: (m) => {
        if (started) finish(endOf(m));
      },
      onFatal: (m) => finish(endOf(m)),
    });
    this.reader = reader;
    const abort = () => finish({ why: "stopped", reason: "dropped" });
    signal.addEventListener("abort", abort, { once: true });
    let remux: Fmp4TsRelay | undefined;
    let watch: NodeJS.Timeout | undefined;
    try {
      if (signal.aborted) return { why: "stopped", reason: "dropped" };
      const s = await Promise.race([reader.start(), ended]);
      if (end !== undefined) return end;
      if ("ok" in s && !s.ok) return endOf(s.message, s.cause === "unplayable");
      started = true;
      remux = new Fmp4TsRelay({
        publication: () => reader.publication,
        alive: () => end === undefined,
        maxQueuedBytes: UNUSED_QUEUE_BYTES,
        maxBacklogMs: 0,
        graceMs: Number.POSITIVE_INFINITY,
        onStop: () => {
          if (remux?.failure !== undefined)
            finish({ why: `the source cannot be remuxed: ${remux.failure}`, reason: "not_media" });
        },
        session: { packets: this.o.packets, discontinuity: this.o.discontinuity },
      });
      // Stalled: the newest segment the MPD lists (as last loaded) did not advance. The
      // packager fetches a segment ahead of its MPD (LL-DASH), so its own output can go on
      // past a frozen MPD: the MPD is what is judged, as the failback probe judges it.
      let newest = Number.NEGATIVE_INFINITY;
      let advancedAt = Date.now();
      let first = true;
      const check = () => {
        const snapshot = reader.mpdInUse;
        if (snapshot === undefined) return;
        const { mpd, clockOffsetMs } = snapshot;
        if (mpd.type !== "dynamic")
          return finish({ why: "the source MPD is static (not live)", reason: "not_media" });
        const now = Date.now();
        const seg = newestSegmentOf(mpd, now + clockOffsetMs);
        const limitMs = stallLimitMs(mpd, seg?.durationSec ?? mpd.maxSegmentDuration ?? 2);
        // A source frozen before it was opened: its newest segment became available long
        // ago on the origin's clock (its UTCTiming's, else this machine's with a slack).
        const ageMs = first ? frozenBeforeOpenMs(mpd, now + clockOffsetMs) : undefined;
        if (ageMs !== undefined)
          return finish({
            why: `the source MPD's newest segment is ${Math.round(ageMs / 1000)} s old`,
            reason: "stalled",
          });
        first = false;
        if (seg !== undefined && seg.end > newest) {
          newest = seg.end;
          advancedAt = now;
          return;
        }
        if (now - advancedAt > limitMs)
          finish({
            why: `the source MPD's newest segment did not advance for ${Math.round((now - advancedAt) / 1000)} s`,
            reason: "stalled",
          });
      };
      check();
      watch = setInterval(check, WATCH_MS);
      return await ended;
    } finally {
      clearInterval(watch);
      signal.removeEventListener("abort", abort);
      finish({ why: "stopped", reason: "dropped" });
      remux?.stop("stopped");
      await reader.stop();
    }
  }
}

/**
 * Failover's label of a native packager's message: its fetch failures (`MPD: upstream
 * answered 404`, `segment 12: timeout`, `init segment: …`) by status or not, what it cannot
 * read (`MPD Period: …`, `segment 12 moof: …`, a static MPD) as `not_media`, a missing key
 * as a configuration error.
 */
export function endOf(message: string, unplayable = false): DashRelayEnd {
  const why = `source: ${message}`;
  if (/no key is configured for KID/.test(message))
    return { why, reason: "not_media", config: true };
  if (/^(MPD|(init )?segment( \d+)?): /.test(message) && !unplayable)
    return { why, reason: reasonOfFetchFailure("", message) };
  if (/answered \d{3}/.test(message)) return { why, reason: "http_error" };
  if (/egress guard refused|timeout|timed out|ECONN|network/i.test(message))
    return { why, reason: "connect_error" };
  return { why, reason: "not_media" };
}
