import { type Egress, guardRefusal } from "@svc/core/egress";
import { inspectInit } from "../mp4/inspect-init.js";
import {
  loadMpd,
  type MpdValidators,
  refreshMpd,
  resolveClockOffset,
} from "./fetcher/mpd-loader.js";
import { describeRefusal, type FetchContext } from "./fetcher/upstream-fetch.js";
import { inspectNativeSupport } from "./inspection/native-inspection.js";
import { checkSessionStart, type StartFailureCause } from "./inspection/start-check.js";
import { absurdMpdProblem } from "./inspection/timeline-check.js";
import { listAvailableSegments } from "./manifest/segment-availability.js";
import { planNativeRenditions } from "./native-support.js";
import { ChannelPublication } from "./publisher/channel-publication.js";
import { masterInputFromSelection } from "./publisher/master-playlist.js";
import { QUERY_MARK, RenditionWindow } from "./publisher/rendition-window.js";
import { createPackagerCounters, type PackagerCounters } from "./scheduler/packager-counters.js";
import { type MpdSnapshot, pause, runRenditionPump } from "./scheduler/rendition-pump.js";
import { liveStartSeconds } from "./scheduler/segment-cursor.js";
import type { FragmentTransformFactory } from "./segmenter/fragment-transform.js";
import type { SelectionPreferences } from "./selection/representation-choice.js";

export interface NativePackagerOptions {
  readonly channelId: string;
  readonly sourceUrl: string;
  /** The channel's upstream headers with its user agent. */
  readonly headers: Readonly<Record<string, string>>;
  readonly egress: Egress;
  readonly generation: string;
  /** `media.low_latency`: publish parts when the source delivers CMAF chunks. */
  readonly lowLatency: boolean;
  /** `media.part_target_ms`: CMAF chunks are grouped into LL-HLS parts of about this. */
  readonly partTargetMs: number;
  /** `security.max_playlist_bytes`: ceiling of one MPD. */
  readonly maxMpdBytes: number;
  readonly prefs: SelectionPreferences;
  readonly transforms: FragmentTransformFactory;
  /** Recoverable trouble (a failed fetch): counted and shown as `last_error`. */
  onError(message: string): void;
  /** The packager cannot go on (the MPD is gone): the session restarts it with backoff. */
  onFatal(message: string): void;
}

export type PackagerStart =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly message: string;
      readonly unsupported?: string;
      /** Set when every retry would fail the same way (no engine fallback either). */
      readonly cause?: StartFailureCause;
    };

/** Segments kept per rendition: enough for delta updates past a 6-target-duration skip boundary. */
const WINDOW_SEGMENTS = 10;
/** Complete segments each rendition needs before the channel is published. */
const READY_SEGMENTS = 3;
const MAX_INIT_BYTES = 1 << 20;
const MAX_CHUNK_BYTES = 32 << 20;
/** Consecutive MPD refresh failures after which the packager gives up (and is restarted). */
const MAX_MPD_FAILURES = 5;

/**
 * The native DASH → (LL-)HLS engine of one channel and one publication generation:
 * manifest refresh loop + one pump per rendition feeding a {@link ChannelPublication}.
 * No transcoding: CMAF fragments are republished byte for byte (after the fragment
 * transform).
 */
export class NativePackager {
  readonly engine = "native" as const;
  readonly counters: PackagerCounters = createPackagerCounters();
  publication: ChannelPublication | undefined;
  packMode: "ll-hls" | "hls" | undefined;
  lastProgressMs = Date.now();
  private readonly abort = new AbortController();
  private snapshot: MpdSnapshot | undefined;
  private refreshWaiters = new Set<() => void>();
  private readyResolve: (() => void) | undefined;
  /** Resolves once every rendition holds its first segments (or the source ended). */
  readonly ready: Promise<void>;
  isReady = false;
  private tasks: Promise<void>[] = [];

  get generation(): string {
    return this.o.generation;
  }

  /**
   * The MPD in use (the last one loaded) and the origin's clock offset, for the DASH source
   * reader of the TS engine (failover: `sessions/ts/dash-ts-relay.ts` judges from them
   * whether the source is live and advancing).
   */
  get mpdInUse(): MpdSnapshot | undefined {
    return this.snapshot;
  }

  constructor(private readonly o: NativePackagerOptions) {
    this.ready = new Promise((r) => {
      this.readyResolve = r;
    });
  }

  private ctx(): FetchContext {
    return {
      egress: this.o.egress,
      channelId: this.o.channelId,
      headers: this.o.headers,
      credentialOrigin: originOf(this.o.sourceUrl),
      signal: this.abort.signal,
    };
  }

  /** Loads the MPD, checks native support, starts the refresh loop and the pumps. */
  async start(): Promise<PackagerStart> {
    const ctx = this.ctx();
    const loaded = await loadMpd(ctx, this.o.sourceUrl, this.o.maxMpdBytes, 15_000);
    if (!loaded.ok) {
      const { kind, message } = loaded.error;
      if (kind === "fetch") return { ok: false, message };
      return { ok: false, message, cause: kind === "refused" ? "refused" : "unplayable" };
    }
    this.counters.mpd_refreshes += 1;
    const mpd = loaded.mpd;
    // Broken for every engine, so no fallback: the session fails with the reason.
    const absurd = absurdMpdProblem(mpd);
    if (absurd !== undefined) return { ok: false, message: absurd, cause: "unplayable" };
    // Before any other fetch and before a fallback to ffmpeg: a refused address or
    // nothing to publish fails now, not after pumps waited for media (issue 30 item 10).
    const checked = await checkSessionStart(this.o.egress, mpd, Date.now(), this.o.prefs);
    if (!checked.ok) return { ok: false, message: checked.message, cause: checked.cause };
    if (this.abort.signal.aborted) return { ok: false, message: "stopped" };
    let clockOffsetMs = 0;
    if (mpd.type === "dynamic") {
      const clock = await resolveClockOffset(ctx, mpd, loaded.fetchedAtMs);
      if (clock.ok) clockOffsetMs = clock.offsetMs;
      else this.o.onError(clock.message);
    }
    if (this.abort.signal.aborted) return { ok: false, message: "stopped" };
    // The probe's verdict, keys aside: what the native engine cannot do at all.
    const capable = inspectNativeSupport(mpd, { ...this.o.prefs, keyKids: "any" });
    if (!capable.native_supported) {
      const reason = capable.reason ?? "unsupported by the native engine";
      return { ok: false, message: reason, unsupported: reason };
    }
    const support = planNativeRenditions(
      mpd,
      Date.now() + clockOffsetMs,
      this.o.prefs,
      this.o.transforms,
      this.o.channelId,
    );
    if (!support.ok) return { ok: false, message: support.reason };
    this.snapshot = { mpd, clockOffsetMs };

    const first = support.renditions[0]!;
    const listed = listAvailableSegments(mpd, support.period, first.representation, {
      nowMs: Date.now(),
      clockOffsetMs,
    });
    const segments = listed.ok ? listed.value.segments : [];
    const startAtSec =
      mpd.type === "dynamic"
        ? liveStartSeconds(segments, mpd.suggestedPresentationDelay, READY_SEGMENTS)
        : undefined;
    const longest = segments.reduce((m, s) => Math.max(m, s.durationSec), 0);
    const targetDurationSec = mpd.maxSegmentDuration ?? (longest || 2);
    const readyCount = Math.max(1, Math.min(READY_SEGMENTS, segments.length));

    const windows = support.renditions.map(
      (r) =>
        new RenditionWindow({
          name: r.name,
          generation: this.o.generation,
          maxSegments: WINDOW_SEGMENTS,
          targetDurationSec,
        }),
    );
    const publication = new ChannelPublication(this.o.generation, windows);
    const master = masterInputFromSelection(support.selection, {
      videoUri: publication.playlistUri("v0", QUERY_MARK),
      audioUri: (i) => publication.playlistUri(`a${i}`, QUERY_MARK),
    });

    this.tasks.push(
      this.refreshLoop(mpd.minimumUpdatePeriod ?? targetDurationSec, loaded.validators),
    );
    support.renditions.forEach((r, i) => {
      const window = windows[i]!;
      const pump = runRenditionPump({
        ctx,
        role: r.role,
        prefs: this.o.prefs,
        window,
        transform: r.transform,
        counters: this.counters,
        startAtSec,
        maxWindow: WINDOW_SEGMENTS,
        maxInitBytes: MAX_INIT_BYTES,
        maxChunkBytes: MAX_CHUNK_BYTES,
        partTargetSec: this.o.partTargetMs / 1000,
        snapshot: () => this.snapshot!,
        nextRefresh: (ms) => this.nextRefresh(ms),
        onProgress: (kind) => {
          this.lastProgressMs = Date.now();
          if (i === 0 && kind === "segment") this.counters.media_sequence = window.lastMsn;
          if (!this.isReady && windows.every((w) => w.ended || w.segments.length >= readyCount)) {
            this.publish(publication, windows, master);
          }
          publication.notify();
        },
        onError: (m) => this.o.onError(m),
      }).catch((err: unknown) => this.o.onFatal(`rendition ${r.name}: ${(err as Error).message}`));
      this.tasks.push(pump.then(() => publication.notify()));
    });
    return { ok: true };
  }

  /**
   * First publication: the packaging mode is fixed here, once (RFC 8216bis 6.2.1 and
   * 4.4.3.7: target duration and part target may not change between reloads). Parts are
   * published when `media.low_latency` is on and the source delivered every rendition's
   * segments in several parts (chunks grouped to `media.part_target_ms`); PART-TARGET is
   * the coalescing ceiling (`k` times the longest chunk), or a longer part if one was seen.
   */
  private publish(
    publication: ChannelPublication,
    windows: readonly RenditionWindow[],
    master: ReturnType<typeof masterInputFromSelection>,
  ): void {
    const chunked = windows.every((w) => w.segments.every((s) => s.parts.length > 1));
    this.packMode = this.o.lowLatency && chunked ? "ll-hls" : "hls";
    if (this.packMode === "ll-hls") {
      for (const w of windows) {
        const longest = Math.max(
          w.partCeilingSec,
          ...w.segments.flatMap((s) => s.parts.map((p) => p.durationSec)),
        );
        w.partTargetSec = Math.ceil(longest * 1000 - 1e-6) / 1000;
      }
    }
    publication.setMaster(withInitCodecs(master, windows));
    this.publication = publication;
    this.isReady = true;
    this.readyResolve?.();
  }

  private async refreshLoop(periodSec: number, first: MpdValidators): Promise<void> {
    const ctx = this.ctx();
    const everyMs = Math.min(30_000, Math.max(500, periodSec * 1000));
    let url = this.o.sourceUrl;
    let failures = 0;
    let validators = first;
    while (!this.abort.signal.aborted && this.snapshot?.mpd.type === "dynamic") {
      await pause(everyMs, this.abort.signal);
      if (this.abort.signal.aborted) return;
      const r = await refreshMpd(ctx, url, this.o.maxMpdBytes, 15_000, validators);
      if (!r.ok) {
        if (this.abort.signal.aborted) return;
        this.counters.fetch_errors += 1;
        this.counters.retries += 1;
        this.o.onError(r.error.message);
        if (++failures >= MAX_MPD_FAILURES) {
          this.o.onFatal(`MPD failed ${failures} times: ${r.error.message}`);
          return;
        }
        continue;
      }
      failures = 0;
      this.counters.mpd_refreshes += 1;
      validators = r.validators;
      if ("unchanged" in r) {
        // Nothing new: the pumps keep the model they have and are not woken.
        this.counters.mpd_unchanged += 1;
        continue;
      }
      const absurd = absurdMpdProblem(r.mpd);
      if (absurd !== undefined) {
        this.o.onFatal(absurd);
        return;
      }
      // ISO/IEC 23009-1 5.3.1.2: MPD.Location is where the next refresh comes from. One
      // the guard refuses would only fail MAX_MPD_FAILURES refreshes later: give up now.
      const next = r.mpd.locations[0] ?? url;
      if (next !== url) {
        const why = await guardRefusal(this.o.egress, next);
        if (why !== undefined) {
          this.o.onFatal(`MPD Location: ${describeRefusal(next, why)}`);
          return;
        }
      }
      url = next;
      this.snapshot = { mpd: r.mpd, clockOffsetMs: this.snapshot.clockOffsetMs };
      const waiters = [...this.refreshWaiters];
      this.refreshWaiters.clear();
      for (const w of waiters) w();
    }
  }

  private nextRefresh(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.refreshWaiters.delete(done);
        this.abort.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.refreshWaiters.add(done);
      this.abort.signal.addEventListener("abort", done, { once: true });
    });
  }

  bytesHeld(): number {
    let n = 0;
    for (const w of this.publication?.windows.values() ?? []) n += w.bytesHeld();
    return n;
  }

  /** Aborts every fetch and timer and waits for the pumps to return. */
  async stop(): Promise<void> {
    this.abort.abort();
    const waiters = [...this.refreshWaiters];
    this.refreshWaiters.clear();
    for (const w of waiters) w();
    this.publication?.close();
    await Promise.allSettled(this.tasks);
    this.readyResolve?.();
  }
}

/** CODECS from the init segments where the MPD did not declare them (RFC 8216bis 4.4.6.2). */
function withInitCodecs(
  master: ReturnType<typeof masterInputFromSelection>,
  windows: readonly RenditionWindow[],
): ReturnType<typeof masterInputFromSelection> {
  const codecOf = (name: string): string | undefined => {
    const w = windows.find((x) => x.name === name);
    const init = w?.maps.values().next().value;
    if (!init) return undefined;
    const r = inspectInit(init);
    return r.ok ? r.value[0]?.codec : undefined;
  };
  return {
    ...master,
    variants: master.variants.map((v) =>
      v.codecs ? v : { ...v, ...(codecOf("v0") ? { codecs: codecOf("v0")! } : {}) },
    ),
    audio: master.audio.map((a, i) =>
      a.codecs ? a : { ...a, ...(codecOf(`a${i}`) ? { codecs: codecOf(`a${i}`)! } : {}) },
    ),
  };
}

/** The origin of the channel source; "null" (matches nothing) when it does not parse. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "null";
  }
}
