import type { RelayFetch } from "../../hls/egress-fetch.js";
import { openSourcePlaylist } from "../../hls/source-playlist.js";
import { AudioMerger } from "../../ts/audio-merge.js";
import { type MediaSegment, readMediaPlaylist } from "../../ts/hls-playlist-read.js";
import { type FailoverReason, reasonOfFetchFailure } from "../failover/failover-reason.js";
import { HlsAudioRendition } from "./hls-audio-rendition.js";
import { HlsSegmentReader } from "./hls-segment-reader.js";
import { TsFanout } from "./ts-fanout.js";

export interface HlsTsRelayOptions {
  readonly sourceUrl: string;
  readonly preferHeight: number | null;
  /** The channel's `preferred_audio_languages`: which audio rendition of the variant to mux in. */
  readonly audioLanguages?: readonly string[];
  readonly fetch: RelayFetch;
  readonly maxPlaylistBytes: number;
  readonly maxQueuedBytes: number;
  readonly maxBacklogMs: number;
  /** The relay outlives its last viewer this long. */
  readonly graceMs: number;
  readonly onStop: () => void;
  /**
   * The input of a TS engine session (an `hls` channel with fallback sources) rather than a
   * relay for viewers: it runs until stopped (no idle stop), gives up at the first failure
   * (a playlist or segment fetch, a live playlist that stops advancing for three target
   * durations: extensions "Fallback sources and the slate") and hands every slice it sends
   * to `packets`, each discontinuity to `discontinuity`.
   */
  readonly session?: {
    packets(packets: Buffer[]): void;
    discontinuity(): void;
  };
}

/** Why a relay stopped, with failover's label for it. */
export interface RelayEnd {
  readonly why: string;
  readonly reason: FailoverReason;
}

/** Segments fetched ahead of the one being sent. */
const AHEAD = 2;
/** Slices a segment is sent in, spread over most of its duration. */
const SLICES = 20;

interface Fetched {
  readonly segment: MediaSegment;
  readonly packets: Buffer[];
  readonly discontinuity: boolean;
}

/**
 * Extensions "MPEG-TS output" for an `hls` channel whose segments are MPEG-TS: one relay
 * per channel follows the media playlist (the variant of `prefer_height`, else the highest
 * bandwidth), fetches each segment once for all its `stream.ts` viewers, and sends the
 * segments in order, paced over their duration, through a {@link TsFanout} (continuity
 * counters rewritten once for every viewer, `discontinuity_indicator` at
 * `#EXT-X-DISCONTINUITY` and at a gap, slow readers dropped). It starts at the newest segment; a new viewer starts at the start
 * of the segment being sent. AES-128 segments are decrypted (RFC 8216bis 5.2); fMP4 (CMAF)
 * segments are remuxed natively ({@link Fmp4SegmentRemuxer}); SAMPLE-AES is refused. When
 * the variant's audio is a separate rendition (`AUDIO=` group with a URI), that rendition
 * is followed too ({@link HlsAudioRendition}) and muxed into the video's program
 * ({@link AudioMerger}): one MPEG-TS program with video and audio.
 */
export class HlsTsRelay {
  readonly fanout: TsFanout;
  /** Resolves once the first segment is being sent (undefined) or with why it cannot be. */
  readonly ready: Promise<string | undefined>;
  /** Resolves when the relay stops, with why. */
  readonly ended: Promise<RelayEnd>;
  private settle!: (why: string | undefined) => void;
  private end!: (end: RelayEnd) => void;
  private stopped = false;
  private current: Buffer[] | undefined;
  private readonly queue: Fetched[] = [];
  private wake: (() => void) | undefined;
  private idleSince = Date.now();
  private readonly segments: HlsSegmentReader;

  constructor(private readonly o: HlsTsRelayOptions) {
    this.ready = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.ended = new Promise((resolve) => {
      this.end = resolve;
    });
    this.segments = new HlsSegmentReader(o.fetch, (why) => this.fail(why, "not_media"));
    this.fanout = new TsFanout({
      joinPoint: () => this.joinPoint(),
      maxQueuedBytes: o.maxQueuedBytes,
      maxBacklogMs: o.maxBacklogMs,
    });
    void this.produce().catch((err: unknown) => this.fail(String(err)));
    void this.send();
  }

  /**
   * The packets of the segment being sent from its first PAT on (a segment may open with
   * an SDT): a viewer's stream starts with PAT and PMT.
   */
  private joinPoint(): Buffer[] | undefined {
    const current = this.current;
    if (!current) return undefined;
    const pat = current.findIndex((p) => p[1]! === 0x40 && p[2]! === 0);
    return pat < 0 ? undefined : pat === 0 ? current : current.slice(pat);
  }

  /** Segments fetched (one upstream request each), for `/v1/status`-style counters. */
  get segmentsFetched(): number {
    return this.segments.fetched;
  }

  get running(): boolean {
    return !this.stopped;
  }

  stop(why: string, reason: FailoverReason = "dropped"): void {
    if (this.stopped) return;
    this.stopped = true;
    this.settle(why);
    this.end({ why, reason });
    this.wake?.();
    this.fanout.closeAll(why);
    this.o.onStop();
  }

  /** `reason`: failover's label; default from the message (an HTTP status or not). */
  private fail(why: string, reason?: FailoverReason): void {
    this.settle(why);
    this.stop(why, reason ?? reasonOfFetchFailure("", why));
  }

  private idle(): boolean {
    if (this.o.session !== undefined) return this.stopped;
    // Before its first segment the relay waits for its first viewer's request to add it.
    const grace = this.current === undefined ? Math.max(this.o.graceMs, 30_000) : this.o.graceMs;
    if (this.fanout.size > 0) this.idleSince = Date.now();
    else if (Date.now() - this.idleSince > grace) this.stop("no viewer");
    return this.stopped;
  }

  /** Follows the media playlist and fetches new segments into the queue. */
  private async produce(): Promise<void> {
    const first = await openSourcePlaylist(
      this.o.fetch,
      this.o.sourceUrl,
      this.o.maxPlaylistBytes,
      this.o.preferHeight,
      this.o.audioLanguages,
    );
    if (!first.ok) {
      if (first.failure === "fetch") return this.fail(`the source playlist: ${first.message}`);
      if (first.failure === "not_playlist")
        return this.fail("the source is not an HLS playlist", "not_media");
      return this.fail("the master playlist lists no variant", "not_media");
    }
    let { text, mediaUrl } = first;
    const audio =
      first.audioUrl === undefined
        ? undefined
        : {
            rendition: new HlsAudioRendition({
              url: first.audioUrl,
              fetch: this.o.fetch,
              maxPlaylistBytes: this.o.maxPlaylistBytes,
              segmentBytes: (s) => this.segments.bytes(s),
            }),
            merger: new AudioMerger(),
            /** Seconds of video read since the first segment's start. */
            time: 0,
          };
    let next: number | undefined;
    let gap = false;
    let failures = 0;
    const session = this.o.session !== undefined;
    // A session's source fails when its live playlist stops advancing (3 target durations).
    let advancedAt = Date.now();
    while (!this.stopped && !this.idle()) {
      if (text === "") {
        const r = await this.o.fetch(mediaUrl, this.o.maxPlaylistBytes);
        if (!r.ok) {
          if (next === undefined || session) return this.fail(`the media playlist: ${r.message}`);
          failures += 1;
          await this.sleep(Math.min(5000, 500 * failures));
          continue;
        }
        text = r.bytes.toString("utf8");
        mediaUrl = r.url;
      }
      const m = readMediaPlaylist(text, mediaUrl);
      text = "";
      failures = 0;
      const last = m.segments.at(-1);
      if (next === undefined || (last !== undefined && last.msn >= next)) advancedAt = Date.now();
      else if (session && Date.now() - advancedAt > 3 * m.targetDurationSec * 1000)
        return this.fail(
          `the source playlist did not advance for ${Math.round((Date.now() - advancedAt) / 1000)} s`,
          "stalled",
        );
      if (next === undefined) {
        if (!last) {
          await this.sleep(1000);
          continue;
        }
        next = last.msn;
        if (audio) {
          const started = await audio.rendition.start(-last.durationSec);
          if (!started.ok) return this.fail(started.why, started.reason);
        }
      }
      const oldest = m.segments[0];
      if (oldest && oldest.msn > next) {
        gap = true;
        // The audio keeps to the video's clock across segments that fell out of the window.
        if (audio) audio.time += (oldest.msn - next) * m.targetDurationSec;
      }
      for (const s of m.segments) {
        if (s.msn < next) continue;
        if (this.stopped) return;
        if (s.key && s.key.method !== "AES-128")
          return this.fail(
            `the channel's HLS segments are encrypted with ${s.key.method}, which stream.ts cannot decrypt`,
            "not_media",
          );
        // Keep at most AHEAD segments fetched and not sent yet.
        while (this.queue.length >= AHEAD && !this.stopped) await this.sleep(250);
        let packets = await this.segments.packets(s);
        next = s.msn + 1;
        if (audio) {
          audio.time += s.durationSec;
          const a = await audio.rendition.take(audio.time);
          if (!a.ok && (session || (this.current === undefined && this.queue.length === 0)))
            return this.fail(a.why, a.reason);
          if (typeof packets !== "string")
            packets = audio.merger.merge(packets, a.ok ? a.units : [], audio.rendition.entry);
        }
        if (typeof packets === "string") {
          // Nothing sent yet (or a session's source): the source cannot be played, say why.
          if (session || (this.current === undefined && this.queue.length === 0))
            return this.fail(
              packets,
              /not MPEG-TS|cannot carry/.test(packets) ? "not_media" : undefined,
            );
          gap = true;
          continue;
        }
        this.queue.push({ segment: s, packets, discontinuity: s.discontinuity || gap });
        gap = false;
        this.wake?.();
      }
      if (m.endList) {
        // An ended (or VOD) playlist: send what is queued, then end the viewers.
        while (this.queue.length > 0 && !this.stopped) await this.sleep(250);
        return this.stop("the source playlist ended", "dropped");
      }
      // RFC 8216bis 6.3.4: reload no sooner than half a target duration after a change.
      await this.sleep(Math.max(500, Math.min(5000, (m.targetDurationSec * 1000) / 2)));
    }
  }

  /** Sends the queued segments in order, each in slices over most of its duration. */
  private async send(): Promise<void> {
    while (!this.stopped) {
      const f = this.queue[0];
      if (!f) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, 1000);
        });
        this.wake = undefined;
        if (this.idle()) return;
        continue;
      }
      if (f.discontinuity && this.current) {
        this.fanout.discontinuity();
        this.o.session?.discontinuity();
      }
      this.current = [];
      this.settle(undefined);
      const per = Math.ceil(f.packets.length / SLICES);
      // Behind (segments waiting): faster, so the relay stays near the live edge.
      const pace = this.queue.length > 1 ? 0.5 : 0.9;
      const gapMs = (f.segment.durationSec * 1000 * pace) / SLICES;
      for (let i = 0; i < f.packets.length && !this.stopped; i += per) {
        const slice = f.packets.slice(i, i + per);
        this.current.push(...slice);
        this.fanout.push(slice);
        this.o.session?.packets(slice);
        if (i + per < f.packets.length) await this.sleep(gapMs);
      }
      this.queue.shift();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
  }
}
