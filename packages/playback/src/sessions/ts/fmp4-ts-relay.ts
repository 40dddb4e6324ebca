import type { ChannelPublication } from "../../dash/publisher/channel-publication.js";
import type { RenditionWindow } from "../../dash/publisher/rendition-window.js";
import { type RemuxTrack, remuxSamples, remuxTrackOfInit } from "../../ts/fmp4-samples.js";
import { TIME_OFFSET } from "../../ts/fmp4-segment-remuxer.js";
import { TsMuxer } from "../../ts/ts-muxer.js";
import { TsFanout } from "./ts-fanout.js";

/** A join point (the packets since the latest key frame) larger than this is not kept. */
const MAX_JOIN_BYTES = 32 << 20;

export interface Fmp4TsRelayOptions {
  /** The channel's current publication (a new generation is a new source). */
  readonly publication: () => ChannelPublication | undefined;
  /** False once the channel's session has stopped or been replaced: viewers are closed. */
  readonly alive: () => boolean;
  readonly maxQueuedBytes: number;
  readonly maxBacklogMs: number;
  /** The relay ran out of viewers (for `graceMs`) or its source: it has stopped. */
  readonly onStop: () => void;
  readonly graceMs: number;
  /**
   * The input of a TS engine session (a `dash` channel with fallback sources,
   * `dash-ts-relay.ts`): every packet written and every discontinuity, as the fan-out gets them.
   */
  readonly session?: {
    packets(packets: Buffer[]): void;
    discontinuity(): void;
  };
}

interface Timed {
  /** DTS on an unwrapped 90 kHz clock, for interleaving. */
  readonly dts: number;
  readonly pts: number;
  readonly data: Buffer;
  readonly sync: boolean;
  readonly discontinuity: boolean;
}

interface Lane {
  readonly kind: "video" | "audio";
  readonly window: RenditionWindow;
  next: number;
  mapIndex: number | undefined;
  track: RemuxTrack | undefined;
  queue: Timed[];
}

/**
 * Extensions "MPEG-TS output" for fMP4 sources: the segments the DASH engine publishes
 * (`v0` and the default audio `a0`, ClearKey already decrypted) remuxed once per channel
 * into one MPEG-TS program and handed to every `stream.ts` viewer through a
 * {@link TsFanout} (one stream with continuous counters for every viewer, slow readers
 * dropped). It starts at the newest complete segment, joins new viewers at the latest key
 * frame, and marks a discontinuity at a new generation, a published discontinuity or a
 * window it fell out of.
 * @example
 * const check = Fmp4TsRelay.check(publication); // undefined, or why it cannot be carried
 * const relay = new Fmp4TsRelay({ publication: () => session.packager?.publication, … });
 * relay.fanout.add(sink);
 */
export class Fmp4TsRelay {
  readonly fanout: TsFanout;
  private pub: ChannelPublication | undefined;
  private lanes: Lane[] = [];
  private muxer: TsMuxer | undefined;
  private join: Buffer[] | undefined;
  private joinBytes = 0;
  private started = false;
  private stopped = false;
  private idleSince = Date.now();
  /** Why the source cannot be remuxed any more (a codec change); the relay stops. */
  failure: string | undefined;

  constructor(private readonly o: Fmp4TsRelayOptions) {
    this.fanout = new TsFanout({
      joinPoint: () => this.joinPoint(),
      maxQueuedBytes: o.maxQueuedBytes,
      maxBacklogMs: o.maxBacklogMs,
    });
    void this.run();
  }

  /** Why the publication's renditions cannot be remuxed to TS, or undefined when they can. */
  static check(pub: ChannelPublication): string | undefined {
    const video = pub.windows.get("v0");
    const audio = pub.windows.get("a0");
    if (!video && !audio) return "the channel publishes no video or audio rendition";
    for (const [w, handler] of [
      [video, "vide"],
      [audio, "soun"],
    ] as const) {
      if (!w) continue;
      const init = newestMap(w);
      if (!init) return `rendition ${w.name} has no init section yet`;
      const t = remuxTrackOfInit(init, handler);
      if (!t.ok) return t.error;
    }
    return undefined;
  }

  get running(): boolean {
    return !this.stopped;
  }

  stop(why: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.fanout.closeAll(why);
    this.o.onStop();
  }

  private joinPoint(): Buffer[] | undefined {
    if (!this.muxer) return undefined;
    // Audio only: every frame is a random-access point; PAT and PMT first.
    if (!this.lanes.some((l) => l.kind === "video"))
      return this.started ? this.muxer.psi() : undefined;
    return this.join;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (!this.o.alive()) {
        this.stop("the channel session stopped");
        break;
      }
      const pub = this.o.publication();
      if (pub !== this.pub) this.switchTo(pub);
      if (pub) {
        this.pull();
        this.emit();
      }
      if (this.fanout.size > 0) this.idleSince = Date.now();
      else if (Date.now() - this.idleSince > this.o.graceMs) this.stop("no viewer");
      if (this.stopped) break;
      if (pub) await pub.nextChange(1000);
      else await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** A new generation (or none): a new source from its newest complete segment. */
  private switchTo(pub: ChannelPublication | undefined): void {
    const had = this.pub !== undefined;
    this.pub = pub;
    this.lanes = [];
    this.muxer = undefined;
    this.join = undefined;
    this.started = false;
    if (had) this.discontinuity();
    if (!pub) return;
    for (const [kind, name] of [
      ["video", "v0"],
      ["audio", "a0"],
    ] as const) {
      const window = pub.windows.get(name);
      if (window)
        this.lanes.push({
          kind,
          window,
          // -1: no complete segment yet; the newest one, once there is one.
          next: window.lastMsn,
          mapIndex: undefined,
          track: undefined,
          queue: [],
        });
    }
  }

  /** Complete segments not read yet, as timed samples in each lane's queue. */
  private pull(): void {
    for (const lane of this.lanes) {
      const w = lane.window;
      if (lane.next < 0) {
        if (w.lastMsn < 0) continue;
        lane.next = w.lastMsn;
      }
      while (lane.next <= w.lastMsn) {
        let seg = w.segments.find((s) => s.msn === lane.next);
        let fellOut = false;
        if (!seg) {
          // Left the window before it was read (the relay was late): go on from the oldest.
          seg = w.segments.find((s) => s.msn > lane.next);
          if (!seg) break;
          fellOut = true;
        }
        lane.next = seg.msn + 1;
        if (seg.mapIndex !== lane.mapIndex || !lane.track) {
          const init = w.maps.get(seg.mapIndex);
          const t = init
            ? remuxTrackOfInit(init, lane.kind === "video" ? "vide" : "soun")
            : undefined;
          if (!t?.ok) {
            this.failure = t?.error ?? `rendition ${w.name} lost its init section`;
            this.stop(this.failure);
            return;
          }
          if (lane.track && !sameCarriage(lane.track, t.value)) {
            this.failure = "the source changed codec";
            this.stop(this.failure);
            return;
          }
          lane.track = t.value;
          lane.mapIndex = seg.mapIndex;
        }
        const bytes = Buffer.concat(seg.parts.flatMap((p) => p.bytes));
        const r = remuxSamples(bytes, lane.track);
        if (!r.ok) {
          // One bad segment: skipped, and the next one flagged.
          fellOut = true;
          continue;
        }
        const scale = BigInt(lane.track.timescale);
        let first = seg.discontinuity || fellOut;
        for (const s of r.value) {
          lane.queue.push({
            dts: Number((s.dts * 90_000n) / scale) + TIME_OFFSET,
            pts: Number((s.pts * 90_000n) / scale) + TIME_OFFSET,
            data: s.data,
            sync: s.sync,
            discontinuity: first,
          });
          first = false;
        }
      }
    }
  }

  /** Writes the queued samples in DTS order while every lane has one. */
  private emit(): void {
    const video = this.lanes.find((l) => l.kind === "video");
    const audio = this.lanes.find((l) => l.kind === "audio");
    if (!this.muxer) {
      if (this.lanes.some((l) => !l.track)) return;
      this.muxer = new TsMuxer({
        ...(video?.track?.kind === "video" ? { video: video.track.codec } : {}),
        ...(audio ? { audio: "aac" as const } : {}),
      });
    }
    const mux = this.muxer;
    for (;;) {
      const v = video?.queue[0];
      const a = audio?.queue[0];
      if ((video && !v) || (audio && !a)) return;
      const lane = v && (!a || v.dts <= a.dts) ? video! : audio!;
      const s = lane.queue.shift()!;
      if (s.discontinuity && this.started && lane === (video ?? audio)) {
        this.discontinuity();
        this.join = undefined;
        if (video) this.started = false;
      }
      if (!this.started) {
        // Nothing before the first key frame (nor audio ahead of it).
        if (lane !== (video ?? audio) || !s.sync) continue;
        this.started = true;
      }
      const packets =
        lane.kind === "video" ? mux.video(s.data, s.pts, s.dts, s.sync) : mux.audio(s.data, s.pts);
      if (lane.kind === "video" && s.sync) {
        this.join = [...packets];
        this.joinBytes = 0;
      } else if (this.join) this.join.push(...packets);
      this.joinBytes += packets.length * 188;
      if (this.joinBytes > MAX_JOIN_BYTES) this.join = undefined;
      this.fanout.push(packets);
      this.o.session?.packets(packets);
    }
  }

  private discontinuity(): void {
    this.fanout.discontinuity();
    this.o.session?.discontinuity();
  }
}

function newestMap(w: RenditionWindow): Buffer | undefined {
  const keys = [...w.maps.keys()];
  return keys.length === 0 ? undefined : w.maps.get(Math.max(...keys));
}

/** The same PMT carries both: the same kind and codec. */
function sameCarriage(a: RemuxTrack, b: RemuxTrack): boolean {
  if (a.kind === "video" && b.kind === "video") return a.codec === b.codec;
  return a.kind === b.kind;
}
