import type { RelayFetch } from "../../hls/egress-fetch.js";
import { AudioTsReader, type AudioUnit } from "../../ts/audio-rendition-ts.js";
import { Fmp4SegmentRemuxer } from "../../ts/fmp4-segment-remuxer.js";
import {
  type MediaPlaylist,
  type MediaSegment,
  readMediaPlaylist,
} from "../../ts/hls-playlist-read.js";
import { isPackedAudio, packedAudioToTs } from "../../ts/packed-audio.js";
import { TsMuxer } from "../../ts/ts-muxer.js";
import { PACKET_SIZE, SYNC_BYTE } from "../../ts/ts-packet.js";
import { type FailoverReason, reasonOfFetchFailure } from "../failover/failover-reason.js";

/** An init section larger than this is refused. */
const MAX_INIT_BYTES = 1 << 20;
/** Reloads of the audio playlist for a segment it does not list yet, 500 ms apart. */
const WAITS = 4;

export interface HlsAudioRenditionOptions {
  /** The audio rendition's media playlist. */
  readonly url: string;
  readonly fetch: RelayFetch;
  readonly maxPlaylistBytes: number;
  /** A segment's bytes, fetched and decrypted as the video's are. */
  readonly segmentBytes: (s: MediaSegment) => Promise<Buffer | string>;
}

export type AudioTake =
  | { readonly ok: true; readonly units: AudioUnit[] }
  | { readonly ok: false; readonly why: string; readonly reason: FailoverReason };

/**
 * The audio rendition an HLS variant names (`AUDIO=` group), followed beside its video by
 * {@link HlsTsRelay}: its segments (MPEG-TS, packed ADTS audio with an ID3 timestamp, or
 * fMP4 remuxed) read into audio PES units on the source's own timeline, for
 * {@link AudioMerger} to mux into the video's program.
 *
 * Which audio segments go with which video segment, by accumulated duration from the live
 * edge: at the start, the audio segment whose start (counted back from the end of the
 * audio playlist) is nearest to the start of the first video segment (counted back from
 * the end of the video playlist); from then on audio segments in order, fetched until the
 * audio read so far covers the video read so far. The timestamps then place every audio
 * unit (the merge interleaves by DTS), so a segment of skew costs nothing but a segment
 * of audio held for the next video segment.
 */
export class HlsAudioRendition {
  private readonly reader = new AudioTsReader();
  private playlist: MediaPlaylist | undefined;
  private next: number | undefined;
  /** Seconds of audio read, on the video's clock (0: the start of the first video segment). */
  private time = 0;
  /** Since when reloads have found the playlist not advanced (undefined: it advanced). */
  private stuckSince: number | undefined;
  private remuxer: { map: string; remuxer: Fmp4SegmentRemuxer } | undefined;
  private readonly packer = new TsMuxer({ audio: "aac" });

  constructor(private readonly o: HlsAudioRenditionOptions) {}

  /** The audio stream's PMT entry, once its first segment was read. */
  get entry() {
    return this.reader.entry;
  }

  /** Aligns with a video that starts `fromEdgeSec` (≤ 0) before its playlist's end. */
  async start(fromEdgeSec: number): Promise<AudioTake> {
    const loaded = await this.reload();
    if (!loaded.ok) return loaded;
    const segments = this.playlist?.segments ?? [];
    let end = 0;
    let best: { msn: number; start: number } | undefined;
    for (let i = segments.length - 1; i >= 0; i--) {
      const start = end - segments[i]!.durationSec;
      if (!best || Math.abs(start - fromEdgeSec) < Math.abs(best.start - fromEdgeSec))
        best = { msn: segments[i]!.msn, start };
      end = start;
    }
    if (best) {
      this.next = best.msn;
      this.time = best.start - fromEdgeSec;
    }
    return { ok: true, units: [] };
  }

  /** The audio units of the segments that cover the video up to `untilSec` (video clock). */
  async take(untilSec: number): Promise<AudioTake> {
    const units: AudioUnit[] = [];
    let waits = 0;
    // 0.1 s: a rendition cut a little apart from the video is not fetched a segment early.
    while (this.time < untilSec - 0.1) {
      const segments = this.playlist?.segments ?? [];
      const next = this.next ?? segments.at(-1)?.msn;
      const s = segments.find((x) => x.msn === next);
      if (!s) {
        const oldest = segments[0];
        if (oldest && next !== undefined && oldest.msn > next) {
          // Fell out of the window (the relay was late): on from the oldest listed.
          this.next = oldest.msn;
          continue;
        }
        // Not listed yet: the rest comes with the next video segment.
        if (waits >= WAITS) break;
        waits += 1;
        await new Promise((r) => setTimeout(r, 500));
        const loaded = await this.reload();
        if (!loaded.ok) return loaded;
        continue;
      }
      const bytes = await this.o.segmentBytes(s);
      if (typeof bytes === "string")
        return {
          ok: false,
          why: `audio ${bytes}`,
          reason: /encrypted|decryption|not 16 bytes/.test(bytes)
            ? "not_media"
            : reasonOfFetchFailure("", bytes),
        };
      const packets = await this.packets(s, bytes);
      if (typeof packets === "string")
        return packets.startsWith("the audio init section:")
          ? { ok: false, why: packets, reason: reasonOfFetchFailure("", packets) }
          : { ok: false, why: packets, reason: "not_media" };
      units.push(...this.reader.read(packets));
      this.time += s.durationSec;
      this.next = s.msn + 1;
    }
    return { ok: true, units };
  }

  /** Reloads the playlist; a playlist that stopped advancing for 3 target durations fails. */
  private async reload(): Promise<AudioTake> {
    const r = await this.o.fetch(this.o.url, this.o.maxPlaylistBytes);
    if (!r.ok)
      return {
        ok: false,
        why: `the audio playlist: ${r.message}`,
        reason: reasonOfFetchFailure("", r.message),
      };
    const m = readMediaPlaylist(r.bytes.toString("utf8"), r.url);
    const last = m.segments.at(-1)?.msn ?? -1;
    // Reloaded only when a segment is due and not listed: a playlist that has not advanced
    // across such reloads for three target durations is frozen (RFC 8216bis 6.2.2 limit).
    if (last > (this.playlist?.segments.at(-1)?.msn ?? -1)) this.stuckSince = undefined;
    else this.stuckSince ??= Date.now();
    if (
      this.stuckSince !== undefined &&
      Date.now() - this.stuckSince > 3 * m.targetDurationSec * 1000
    )
      return { ok: false, why: "the audio playlist did not advance", reason: "stalled" };
    if (m.endList) return { ok: false, why: "the audio playlist ended", reason: "dropped" };
    this.playlist = m;
    return { ok: true, units: [] };
  }

  /** A segment's audio as TS packets (fMP4 remuxed, packed audio packetized). */
  private async packets(s: MediaSegment, bytes: Buffer): Promise<Buffer[] | string> {
    if (s.map !== undefined) {
      if (this.remuxer?.map !== s.map) {
        const init = await this.o.fetch(s.map, MAX_INIT_BYTES);
        if (!init.ok) return `the audio init section: ${init.message}`;
        const r = Fmp4SegmentRemuxer.of(init.bytes);
        if (!r.ok) return `the audio rendition cannot be carried: ${r.error}`;
        this.remuxer = { map: s.map, remuxer: r.value };
      }
      const r = this.remuxer.remuxer.segment(bytes);
      return r.ok ? r.value : `audio segment ${s.msn}: ${r.error}`;
    }
    if (bytes[0] !== SYNC_BYTE && isPackedAudio(bytes)) return packedAudioToTs(bytes, this.packer);
    let at = 0;
    while (at < Math.min(bytes.length, PACKET_SIZE) && bytes[at] !== SYNC_BYTE) at++;
    if (bytes[at] !== SYNC_BYTE) return `audio segment ${s.msn} is not MPEG-TS or packed audio`;
    const out: Buffer[] = [];
    for (; at + PACKET_SIZE <= bytes.length; at += PACKET_SIZE)
      if (bytes[at] === SYNC_BYTE) out.push(bytes.subarray(at, at + PACKET_SIZE));
    return out;
  }
}
