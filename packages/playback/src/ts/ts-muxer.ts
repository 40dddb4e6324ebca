import type { VideoCodec } from "./annex-b.js";
import { PTS_WRAP } from "./pes.js";
import { crc32Mpeg2 } from "./psi.js";
import { PACKET_SIZE, PAT_PID } from "./ts-packet.js";

// ISO/IEC 13818-1: one program (2.4.4), PES (2.4.3.6), adaptation field and PCR (2.4.3.4).

export const PMT_PID = 0x1000;
export const VIDEO_PID = 0x100;
export const AUDIO_PID = 0x101;
/** stream_type (Table 2-34): H.264, H.265, AAC in ADTS. */
export const STREAM_TYPE = { avc: 0x1b, hevc: 0x24, aac: 0x0f } as const;
/** PAT and PMT at least this often (90 kHz ticks: 100 ms), and at every random-access point. */
export const PSI_INTERVAL = 9000;
/** The PCR runs this far (90 kHz: 0.7 s) behind the DTS it travels with: the decoder's buffer time. */
export const PCR_DELAY = 63_000;

export interface MuxerTracks {
  readonly video?: VideoCodec;
  readonly audio?: "aac";
}

/**
 * A single-program MPEG-TS writer for elementary streams already in their TS form (Annex
 * B video, ADTS audio): PAT and PMT (repeated every {@link PSI_INTERVAL} and at each
 * random-access point), one PES per access unit with PTS/DTS on the 90 kHz clock, the
 * PCR on the first packet of every video PES (of every audio PES without video),
 * `random_access_indicator` at key frames. Pure: it returns 188-byte packets.
 * @example
 * const mux = new TsMuxer({ video: "avc", audio: "aac" });
 * out.push(...mux.video(annexB, pts, dts, true), ...mux.audio(adts, pts));
 */
export class TsMuxer {
  private readonly counters = new Map<number, number>();
  private lastPsi: number | undefined;
  private readonly pcrPid: number;
  private readonly pmt: Buffer;
  private readonly pat: Buffer;

  constructor(private readonly tracks: MuxerTracks) {
    if (!tracks.video && !tracks.audio) throw new Error("a TS program needs a stream");
    this.pcrPid = tracks.video ? VIDEO_PID : AUDIO_PID;
    this.pat = patSection();
    this.pmt = pmtSection(tracks, this.pcrPid);
  }

  /** PAT then PMT, each one packet. */
  psi(): Buffer[] {
    return [this.section(PAT_PID, this.pat), this.section(PMT_PID, this.pmt)];
  }

  /** One video access unit (Annex B) as PES packets; `pts`/`dts` in 90 kHz ticks. */
  video(au: Uint8Array, pts: number, dts: number, randomAccess: boolean): Buffer[] {
    if (!this.tracks.video) throw new Error("no video stream in this program");
    const out = this.psiDue(dts, randomAccess);
    out.push(...this.pes(VIDEO_PID, 0xe0, au, pts, dts, randomAccess, true));
    return out;
  }

  /** ADTS frames of one PES; `pts` in 90 kHz ticks. */
  audio(frames: Uint8Array, pts: number): Buffer[] {
    if (!this.tracks.audio) throw new Error("no audio stream in this program");
    const pcr = this.pcrPid === AUDIO_PID;
    const out = this.psiDue(pts, false);
    out.push(...this.pes(AUDIO_PID, 0xc0, frames, pts, pts, pcr, pcr));
    return out;
  }

  private psiDue(at: number, randomAccess: boolean): Buffer[] {
    const last = this.lastPsi;
    // A stream a little behind the other (audio lagging video) is no reason to repeat;
    // a jump back of more than 10 s (a new source) is.
    const d = last === undefined ? Number.POSITIVE_INFINITY : wrapDelta(last, at);
    if (randomAccess || d >= PSI_INTERVAL || d < -10 * 90_000) {
      this.lastPsi = at;
      return this.psi();
    }
    return [];
  }

  private counter(pid: number): number {
    const cc = ((this.counters.get(pid) ?? 15) + 1) & 0x0f;
    this.counters.set(pid, cc);
    return cc;
  }

  private section(pid: number, section: Buffer): Buffer {
    const p = Buffer.alloc(PACKET_SIZE, 0xff);
    p[0] = 0x47;
    p[1] = 0x40 | (pid >> 8);
    p[2] = pid & 0xff;
    p[3] = 0x10 | this.counter(pid);
    p[4] = 0; // pointer_field
    section.copy(p, 5);
    return p;
  }

  private pes(
    pid: number,
    streamId: number,
    data: Uint8Array,
    pts: number,
    dts: number,
    randomAccess: boolean,
    withPcr: boolean,
  ): Buffer[] {
    const both = pts !== dts;
    const headerLength = both ? 10 : 5;
    const header = Buffer.alloc(9 + headerLength);
    header.set([0, 0, 1, streamId], 0);
    const length = 3 + headerLength + data.length;
    // 2.4.3.7: 0 (unbounded) is allowed for video only.
    header.writeUInt16BE(length > 0xffff ? 0 : length, 4);
    header[6] = 0x84; // '10', data_alignment_indicator
    header[7] = both ? 0xc0 : 0x80;
    header[8] = headerLength;
    writeTimestamp(header, 9, both ? 3 : 2, pts);
    if (both) writeTimestamp(header, 14, 1, dts);
    const pes = Buffer.concat([header, data]);
    const out: Buffer[] = [];
    let at = 0;
    let first = true;
    while (at < pes.length) {
      // The adaptation field's bytes after its length byte; `hasAf` with none is length 0.
      const af: number[] = [];
      let hasAf = false;
      if (first && (randomAccess || withPcr)) {
        hasAf = true;
        af.push((randomAccess ? 0x40 : 0) | (withPcr ? 0x10 : 0));
        if (withPcr) af.push(...pcrBytes(wrap(dts - PCR_DELAY)));
      }
      const room = PACKET_SIZE - 4 - (hasAf ? 1 + af.length : 0);
      const size = Math.min(pes.length - at, room);
      let stuffing = room - size;
      if (stuffing > 0 && !hasAf) {
        // The last packet's short payload: an adaptation field of `stuffing` bytes.
        hasAf = true;
        stuffing -= 1;
        if (stuffing > 0) {
          af.push(0x00);
          stuffing -= 1;
        }
      }
      for (let i = 0; i < stuffing; i++) af.push(0xff);
      const p = Buffer.alloc(PACKET_SIZE);
      p[0] = 0x47;
      p[1] = (first ? 0x40 : 0) | (pid >> 8);
      p[2] = pid & 0xff;
      p[3] = (hasAf ? 0x30 : 0x10) | this.counter(pid);
      let o = 4;
      if (hasAf) {
        p[o++] = af.length;
        for (const b of af) p[o++] = b;
      }
      pes.copy(p, o, at, at + size);
      if (o + size !== PACKET_SIZE) throw new Error("TS packet layout");
      at += size;
      first = false;
      out.push(p);
    }
    return out;
  }
}

/** `t` on the 33-bit 90 kHz clock. */
export function wrap(t: number): number {
  return ((t % PTS_WRAP) + PTS_WRAP) % PTS_WRAP;
}

/** `to - from` on the 33-bit clock, in (-2^32, 2^32]. */
function wrapDelta(from: number, to: number): number {
  const d = wrap(to - from);
  return d > PTS_WRAP / 2 ? d - PTS_WRAP : d;
}

/** 2.4.3.7: a 33-bit timestamp in 5 bytes behind the 4-bit `prefix`, with marker bits. */
function writeTimestamp(b: Buffer, at: number, prefix: number, t: number): void {
  const v = wrap(t);
  const high = Math.floor(v / 2 ** 30); // bits 32..30
  const low = v % 2 ** 30;
  b[at] = (prefix << 4) | (high << 1) | 1;
  b[at + 1] = (low >> 22) & 0xff;
  b[at + 2] = (((low >> 15) & 0x7f) << 1) | 1;
  b[at + 3] = (low >> 7) & 0xff;
  b[at + 4] = ((low & 0x7f) << 1) | 1;
}

/** 2.4.3.4: program_clock_reference_base (33 bits), 6 reserved bits, extension 0. */
export function pcrBytes(base: number): number[] {
  const v = wrap(base);
  const top = Math.floor(v / 2); // bits 32..1
  return [
    (top >>> 24) & 0xff,
    (top >>> 16) & 0xff,
    (top >>> 8) & 0xff,
    top & 0xff,
    ((v & 1) << 7) | 0x7e,
    0,
  ];
}

/**
 * A PSI section (2.4.4): `tableId`, section_syntax_indicator 1 and the length, the table id
 * extension, version 0 current, section 0 of 0; then `body` and the CRC_32.
 */
function psiSection(tableId: number, extension: number, body: readonly number[]): Buffer {
  const length = 5 + body.length + 4;
  const bytes = [tableId, 0xb0 | (length >> 8), length & 0xff, extension >> 8, extension & 0xff];
  bytes.push(0xc1, 0x00, 0x00, ...body);
  const s = Buffer.alloc(bytes.length + 4);
  s.set(bytes, 0);
  s.writeUInt32BE(crc32Mpeg2(s.subarray(0, bytes.length)), bytes.length);
  return s;
}

/** PAT (2.4.4.3): transport_stream_id 1, program 1 at {@link PMT_PID}. */
function patSection(): Buffer {
  // program_number 1, then its program_map_PID.
  return psiSection(0x00, 1, [0x00, 0x01, 0xe0 | (PMT_PID >> 8), PMT_PID & 0xff]);
}

/** PMT (2.4.4.8) of program 1: video at {@link VIDEO_PID}, audio at {@link AUDIO_PID}. */
function pmtSection(t: MuxerTracks, pcrPid: number): Buffer {
  const streams: number[] = [];
  if (t.video)
    streams.push(STREAM_TYPE[t.video], 0xe0 | (VIDEO_PID >> 8), VIDEO_PID & 0xff, 0xf0, 0);
  if (t.audio) streams.push(STREAM_TYPE.aac, 0xe0 | (AUDIO_PID >> 8), AUDIO_PID & 0xff, 0xf0, 0);
  // PCR_PID, then program_info_length 0.
  return psiSection(0x02, 1, [0xe0 | (pcrPid >> 8), pcrPid & 0xff, 0xf0, 0x00, ...streams]);
}
