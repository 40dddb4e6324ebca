import {
  type AudioStreamEntry,
  type AudioUnit,
  buildPmt,
  isAudioEntry,
  type PmtEntry,
  splitPmt,
} from "./audio-rendition-ts.js";
import { ptsDelta, readPesHeader } from "./pes.js";
import { parsePat } from "./psi.js";
import { PACKET_SIZE, PAT_PID, readPacketHeader } from "./ts-packet.js";

/** The output audio PID when the video's program does not use it. */
const PREFERRED_AUDIO_PID = 0x101;
/** Audio held for later video is dropped past this many units (a rendition far ahead). */
const MAX_PENDING = 2000;
/** Held audio more than this far (90 kHz: 10 s) ahead of the video is dropped. */
const MAX_AHEAD = 10 * 90_000;
/** stream_type of video (Table 2-34): MPEG-1/2, MPEG-4 part 2, H.264, H.265. */
const VIDEO_TYPES = new Set([0x01, 0x02, 0x10, 0x1b, 0x24]);

/**
 * Muxes a separate audio rendition into the video's transport stream, one program (ISO/IEC
 * 13818-1 2.4.4.8): the video's PMT gets the rendition's audio stream on a PID of its own
 * (its own audio streams, if any, are dropped with their packets: a variant that names an
 * audio group plays the group's rendition), the PCR stays on the video, and the audio's
 * PES units go in before the first video PES whose DTS is not earlier than their PTS
 * (both renditions share the source's timeline, so timestamps are kept as they are).
 * Audio later than the segment's last video PES waits for the next segment.
 * @example
 * const merger = new AudioMerger();
 * out.push(...merger.merge(videoPackets, reader.read(audioPackets), reader.entry));
 */
export class AudioMerger {
  private pmtPid: number | undefined;
  private videoPid: number | undefined;
  private audioPid: number | undefined;
  private readonly dropped = new Set<number>();
  /** Rewritten PMT sections by the original's bytes (hex). */
  private readonly rewritten = new Map<string, Buffer>();
  private pending: AudioUnit[] = [];
  private counter = 15;

  /** The video segment's packets with `units` of audio (declared by `entry`) merged in. */
  merge(
    video: readonly Buffer[],
    units: readonly AudioUnit[],
    entry: AudioStreamEntry | undefined,
  ): Buffer[] {
    this.pending.push(...units);
    const out: Buffer[] = [];
    let last: number | undefined;
    for (const p of video) {
      const h = readPacketHeader(p);
      if (h.pid === PAT_PID && h.payloadUnitStart && h.payloadOffset < PACKET_SIZE) {
        const section = sectionIn(p, h.payloadOffset);
        const programs = section ? parsePat(section) : undefined;
        if (programs?.ok && programs.value[0]) this.pmtPid = programs.value[0].pmtPid;
      } else if (h.pid === this.pmtPid && h.payloadUnitStart && h.payloadOffset < PACKET_SIZE) {
        out.push(this.pmtPacket(p, h.payloadOffset, entry));
        continue;
      } else if (this.dropped.has(h.pid)) continue;
      else if (h.pid === this.videoPid && h.payloadUnitStart && h.payloadOffset < PACKET_SIZE) {
        const pes = readPesHeader(p.subarray(h.payloadOffset));
        const t = pes?.dts ?? pes?.pts;
        if (t !== undefined) {
          this.flush(t, out);
          last = t;
        }
      }
      out.push(p);
    }
    if (last !== undefined) {
      const until = last;
      this.pending = this.pending.filter((u) => ptsDelta(until, u.pts) <= MAX_AHEAD);
    }
    if (this.pending.length > MAX_PENDING) this.pending = this.pending.slice(-MAX_PENDING);
    return out;
  }

  /** Writes the held audio units due at video DTS `t`. */
  private flush(t: number, out: Buffer[]): void {
    let due = 0;
    while (due < this.pending.length && ptsDelta(this.pending[due]!.pts, t) >= 0) due++;
    if (due === 0) return;
    const pid = this.audioPid;
    for (const u of this.pending.splice(0, due)) {
      if (pid === undefined) continue;
      for (const p of u.packets) {
        const q = Buffer.from(p);
        q[1] = (q[1]! & 0xe0) | (pid >> 8);
        q[2] = pid & 0xff;
        this.counter = (this.counter + 1) & 0x0f;
        q[3] = (q[3]! & 0xf0) | this.counter;
        dropPcr(q);
        out.push(q);
      }
    }
  }

  /** The PMT packet with the audio stream declared (the original while that cannot be done). */
  private pmtPacket(p: Buffer, payloadOffset: number, entry: AudioStreamEntry | undefined): Buffer {
    const section = sectionIn(p, payloadOffset);
    if (!section || !entry) return p;
    const key = section.toString("hex");
    let rewritten = this.rewritten.get(key);
    if (!rewritten) {
      const parts = splitPmt(section);
      if (!parts) return p;
      const kept = parts.entries.filter((e) => !isAudioEntry(e));
      for (const e of parts.entries) if (isAudioEntry(e)) this.dropped.add(e.pid);
      this.videoPid = kept.find((e) => VIDEO_TYPES.has(e.streamType))?.pid ?? parts.pcrPid;
      const used = new Set([...kept.map((e) => e.pid), this.pmtPid, parts.pcrPid]);
      let pid = this.audioPid ?? PREFERRED_AUDIO_PID;
      while (used.has(pid)) pid++;
      this.audioPid = pid;
      const audio: PmtEntry = { ...entry, pid };
      rewritten = buildPmt(parts, [...kept, audio]);
      if (rewritten.length > PACKET_SIZE - 5) return p;
      this.rewritten.set(key, rewritten);
    }
    const q = Buffer.alloc(PACKET_SIZE, 0xff);
    q[0] = p[0]!;
    q[1] = p[1]!;
    q[2] = p[2]!;
    q[3] = 0x10 | (p[3]! & 0x0f); // payload only, the original's continuity counter
    q[4] = 0; // pointer_field
    rewritten.copy(q, 5);
    return q;
  }
}

/**
 * The PCR of the rendition's own stream (its audio-only TS had it on the audio) means
 * nothing beside the video's: turned into stuffing (2.4.3.5), when the adaptation field
 * carries nothing after it but stuffing.
 */
function dropPcr(q: Buffer): void {
  if ((q[3]! & 0x20) === 0 || q[4]! < 7 || (q[5]! & 0x1f) !== 0x10) return;
  q[5] = q[5]! & ~0x10;
  q.fill(0xff, 6, 12);
}

/** The PSI section that starts in this unit-start packet and ends in it, if it does. */
function sectionIn(p: Buffer, payloadOffset: number): Buffer | undefined {
  const start = payloadOffset + 1 + p[payloadOffset]!;
  if (start + 3 > PACKET_SIZE) return undefined;
  const end = start + 3 + (((p[start + 1]! & 0x0f) << 8) | p[start + 2]!);
  return end > PACKET_SIZE ? undefined : p.subarray(start, end);
}
