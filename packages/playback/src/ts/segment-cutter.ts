import { audioCodecOf, programCodecs, videoCodecOf } from "./codecs.js";
import { AccessUnitScanner, type VideoCodec } from "./nal-scan.js";
import { PTS_CLOCK, ptsDelta, readPesHeader } from "./pes.js";
import { type Pmt, parsePat, parsePmt, SectionAssembler } from "./psi.js";
import { type PictureSize, spsPictureSize } from "./sps-resolution.js";
import { PACKET_SIZE, PAT_PID, packetPid, readPacketHeader } from "./ts-packet.js";

/** One cut segment: PAT and PMT, then the source's own 188-byte packets in order. */
export interface TsSegment {
  readonly bytes: Buffer;
  /** EXTINF: from the PTS of this segment's first access unit to the next segment's. */
  readonly durationSec: number;
  /** PTS (90 kHz, 33 bits) of the first access unit. */
  readonly startPts: number;
  /** The media timeline does not continue the previous segment's (EXT-X-DISCONTINUITY). */
  readonly discontinuity: boolean;
  /** Starts at a random-access point (false only for a cut forced by size or time). */
  readonly independent: boolean;
}

export interface SegmentCutterOptions {
  /** The segment target: a segment is cut at the first random-access point at or after it. */
  readonly targetSec: number;
  /** A timestamp step larger than this (or any step back) is a discontinuity; default 3 s. */
  readonly jumpSec?: number;
  /** A segment without a random-access point is cut anyway past this long; default 4 × target. */
  readonly maxSec?: number;
  /** …or past this many bytes; default 32 MiB. */
  readonly maxBytes?: number;
}

interface Table {
  readonly assembler: SectionAssembler;
  packets: Buffer[];
}

interface OpenSegment {
  packets: Buffer[];
  byteLength: number;
  /** PAT and PMT packets the segment is written after. */
  readonly tables: readonly Buffer[];
  readonly startPts: number;
  /** The latest presentation end seen (startPts + this offset), for a cut at the end of input. */
  endOffset: number;
  readonly discontinuity: boolean;
  readonly independent: boolean;
  /** Packets before the first random-access point: never published. */
  readonly preroll: boolean;
  /** Index in `packets` of the latest random-access point (a live viewer starts there). */
  rapIndex: number;
}

/**
 * Cuts a transport stream into HLS media segments (RFC 8216bis 3.3) without decoding:
 * PAT → PMT → the program's video (H.264/H.265) or, without video, its first audio
 * stream times the cuts. A segment starts at a random-access point (an IDR / IRAP slice
 * first in the PES, or the adaptation field's random_access_indicator), is cut at the
 * first such point at or after the target, and is the original packets behind a copy of
 * the current PAT and PMT. Durations come from PTS deltas across the 2^33 wrap; a
 * timestamp jump or a new connection ({@link discontinuity}) flags the next segment.
 * @example
 * const cutter = new SegmentCutter({ targetSec: 2 });
 * for (const seg of cutter.push(packets)) publish(seg); // { bytes, durationSec, … }
 */
export class SegmentCutter {
  private readonly opts: Required<SegmentCutterOptions>;
  private pat: Table = newTable();
  private pmtTable: Table = newTable();
  private pmtPid = -1;
  private pmt: Pmt | undefined;
  private patPackets: Buffer[] = [];
  private pmtPackets: Buffer[] = [];
  private timingPid = -1;
  private videoCodec: VideoCodec | undefined;
  private scanner: AccessUnitScanner | undefined;
  private sps: Buffer | undefined;
  private seg: OpenSegment | undefined;
  /** Segments completed and not yet returned. */
  private ready: TsSegment[] = [];
  /** A video PES start whose random-access verdict waits for its first slice header. */
  private pending: { index: number; pts: number; rai: boolean } | undefined;
  private lastDts: number | undefined;
  private frameTicks = 0;
  private nextDiscontinuity = false;
  private lastCodecs: string | undefined;
  private lastSize: PictureSize | undefined;

  constructor(opts: SegmentCutterOptions) {
    this.opts = {
      jumpSec: 3,
      maxSec: 4 * opts.targetSec,
      maxBytes: 32 * 1024 * 1024,
      ...opts,
    };
  }

  /**
   * PID of the program's video stream, -1 before the PMT or without video (failover's
   * "no video packets for 5 s" watch, docs/failover.md).
   */
  get videoPid(): number {
    return this.videoCodec === undefined ? -1 : this.timingPid;
  }

  /** RFC 6381 CODECS of the program, once the PMT and (with video) the SPS were seen. */
  get codecs(): string | undefined {
    return this.lastCodecs;
  }

  /** The video's picture size (RESOLUTION), once its SPS was seen. */
  get pictureSize(): PictureSize | undefined {
    return this.lastSize;
  }

  private refreshCodecs(): void {
    if (this.pmt !== undefined)
      this.lastCodecs = programCodecs(this.pmt, this.sps) ?? this.lastCodecs;
    if (this.sps !== undefined && this.videoCodec !== undefined)
      this.lastSize = spsPictureSize(this.videoCodec, this.sps) ?? this.lastSize;
  }

  /**
   * The current PAT and PMT once both are read from the current input (none of a source
   * before {@link discontinuity}): a stream's first bytes before its join point.
   */
  psi(): Buffer[] | undefined {
    return this.pmt === undefined ? undefined : [...this.patPackets, ...this.pmtPackets];
  }

  /**
   * Where a live viewer joins (extensions "MPEG-TS output"): the current PAT and PMT,
   * then the packets since the latest random-access point; undefined until there is one
   * (at the start, and after {@link discontinuity} until the next one).
   */
  joinPoint(): Buffer[] | undefined {
    const seg = this.seg;
    if (seg === undefined || seg.preroll) return undefined;
    return [...this.patPackets, ...this.pmtPackets, ...seg.packets.slice(seg.rapIndex)];
  }

  /** Feeds 188-byte packets; returns the segments they completed. */
  push(packets: readonly Buffer[]): TsSegment[] {
    for (const p of packets) this.packet(p);
    return this.ready.splice(0);
  }

  /**
   * The input ended or was cut (a reconnect follows): the segment in progress is closed
   * at its last presentation time and returned, PSI is read again from the next packets,
   * and the next segment is flagged as a discontinuity.
   */
  discontinuity(): TsSegment[] {
    this.resolvePending(false);
    this.dropLastPes();
    this.closeAtEnd();
    this.seg = undefined;
    this.pat = newTable();
    this.pmtTable = newTable();
    this.pmtPid = -1;
    this.pmt = undefined;
    this.timingPid = -1;
    this.lastDts = undefined;
    // A new connection may bring another encoder: its SPS is read again.
    this.sps = undefined;
    this.nextDiscontinuity = true;
    return this.ready.splice(0);
  }

  private packet(p: Buffer): void {
    const h = readPacketHeader(p);
    const payload = h.payloadOffset < PACKET_SIZE ? p.subarray(h.payloadOffset) : undefined;
    if (h.pid === PAT_PID || h.pid === this.pmtPid) {
      if (payload) this.table(h.pid, p, payload, h.payloadUnitStart);
      this.append(p);
      return;
    }
    if (h.pid !== this.timingPid || payload === undefined) {
      this.append(p);
      return;
    }
    if (!h.payloadUnitStart) {
      this.append(p);
      if (this.pending && this.scanner && !this.scanner.done) {
        this.scanner.push(payload);
        this.afterScan();
      }
      return;
    }
    this.resolvePending(false);
    const pes = readPesHeader(payload);
    if (pes?.pts === undefined) {
      this.append(p);
      return;
    }
    if (this.jumped(pes.dts ?? pes.pts)) this.cutAtJump();
    this.append(p);
    const index = (this.seg?.packets.length ?? 1) - 1;
    this.extend(pes.pts);
    if (this.videoCodec === undefined) {
      // Every audio frame is a random-access point.
      this.decide(true, pes.pts, index);
      return;
    }
    const scanner = this.scanner!;
    scanner.reset();
    if (pes.payloadOffset < payload.length) scanner.push(payload.subarray(pes.payloadOffset));
    this.pending = { index, pts: pes.pts, rai: h.randomAccess };
    this.afterScan();
  }

  private afterScan(): void {
    const s = this.scanner!;
    if (s.sps !== undefined && this.sps === undefined) {
      this.sps = s.sps;
      this.refreshCodecs();
    }
    if (s.done) this.resolvePending(s.randomAccess);
  }

  /** Decides the pending video PES: random access if its slice or adaptation field says so. */
  private resolvePending(sliceRap: boolean): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    this.decide(sliceRap || p.rai, p.pts, p.index);
  }

  private decide(rap: boolean, pts: number, index: number): void {
    const seg = this.seg;
    if (seg === undefined) return;
    if (seg.preroll) {
      if (rap) this.seg = this.open(seg.packets.slice(index), pts, true);
      else {
        // Nothing before a random-access point is ever published.
        seg.packets.splice(0, index);
        seg.byteLength = seg.packets.length * PACKET_SIZE;
      }
      return;
    }
    const elapsed = ptsDelta(seg.startPts, pts);
    if (elapsed <= 0) return;
    // The first segment after a discontinuity (a switch of source, a reconnect) is due at
    // half the target: the new source reaches the playlist sooner (docs/failover.md).
    const target = seg.discontinuity ? this.opts.targetSec / 2 : this.opts.targetSec;
    const due = rap && elapsed >= target * PTS_CLOCK - PTS_CLOCK / 1000;
    const overdue = elapsed >= this.opts.maxSec * PTS_CLOCK || seg.byteLength >= this.opts.maxBytes;
    if (!due && !overdue) {
      if (rap) seg.rapIndex = index;
      return;
    }
    this.ready.push(finish(seg, seg.packets.slice(0, index), elapsed));
    this.seg = this.open(seg.packets.slice(index), pts, rap);
  }

  /**
   * The input was cut: each elementary stream's last PES in the segment in progress may be
   * cut short (a dropped connection, a relay stopped inside a segment), and a truncated
   * frame is what makes decoders fail (Chromium's, behind hls.js: a media error). Its
   * packets are dropped, from the stream's last payload start on; a stream whose only PES
   * that is keeps it (the segment would lose its random-access point).
   */
  private dropLastPes(): void {
    const seg = this.seg;
    if (seg === undefined || seg.preroll || this.pmt === undefined) return;
    for (const { pid } of this.pmt.streams) {
      let last = -1;
      let starts = 0;
      seg.packets.forEach((p, i) => {
        if (packetPid(p) === pid && (p[1]! & 0x40) !== 0) {
          last = i;
          starts += 1;
        }
      });
      if (starts < 2) continue;
      seg.packets = seg.packets.filter((p, i) => i < last || packetPid(p) !== pid);
    }
    seg.byteLength = seg.packets.length * PACKET_SIZE;
  }

  /** The segment in progress ends at its last presentation time (end of input, a jump). */
  private closeAtEnd(): void {
    const seg = this.seg;
    if (seg && !seg.preroll && seg.endOffset + this.frameTicks > 0)
      this.ready.push(finish(seg, seg.packets, seg.endOffset + this.frameTicks));
  }

  /** A timestamp jump: the segment in progress ends here, the next one is a discontinuity. */
  private cutAtJump(): void {
    const published = this.seg !== undefined && !this.seg.preroll;
    this.closeAtEnd();
    if (published) this.nextDiscontinuity = true;
    this.seg = this.open([], 0, false, true);
  }

  private jumped(dts: number): boolean {
    const last = this.lastDts;
    this.lastDts = dts;
    if (last === undefined) return false;
    const d = ptsDelta(last, dts);
    if (d > 0 && (this.frameTicks === 0 || d < this.frameTicks)) this.frameTicks = d;
    return d < 0 || d > this.opts.jumpSec * PTS_CLOCK;
  }

  private extend(pts: number): void {
    const seg = this.seg;
    if (!seg || seg.preroll) return;
    const d = ptsDelta(seg.startPts, pts);
    if (d > seg.endOffset) seg.endOffset = d;
  }

  private open(packets: Buffer[], pts: number, rap: boolean, preroll = false): OpenSegment {
    const seg: OpenSegment = {
      packets,
      byteLength: packets.length * PACKET_SIZE,
      tables: [...this.patPackets, ...this.pmtPackets],
      startPts: pts,
      endOffset: 0,
      discontinuity: !preroll && this.nextDiscontinuity,
      independent: rap,
      preroll: preroll || !rap,
      rapIndex: 0,
    };
    if (!seg.preroll) this.nextDiscontinuity = false;
    return seg;
  }

  private append(p: Buffer): void {
    if (this.pmt === undefined) return;
    this.seg ??= this.open([], 0, false, true);
    this.seg.packets.push(p);
    this.seg.byteLength += PACKET_SIZE;
  }

  private table(pid: number, p: Buffer, payload: Buffer, unitStart: boolean): void {
    const t = pid === PAT_PID ? this.pat : this.pmtTable;
    if (unitStart) t.packets = [];
    t.packets.push(p);
    const section = t.assembler.push(payload, unitStart);
    if (section === undefined) return;
    const copies = t.packets.map((x) => Buffer.from(x));
    t.packets = [];
    if (pid === PAT_PID) {
      const pat = parsePat(section);
      // A section failing its CRC is skipped: the source repeats PAT and PMT.
      if (!pat.ok || pat.value.length === 0) return;
      this.pmtPid = pat.value[0]!.pmtPid;
      this.patPackets = copies;
      return;
    }
    const pmt = parsePmt(section);
    if (!pmt.ok) return;
    this.pmtPackets = copies;
    const same = this.pmt !== undefined && this.timingPidOf(pmt.value) === this.timingPid;
    this.pmt = pmt.value;
    this.refreshCodecs();
    if (same) return;
    this.timingPid = this.timingPidOf(pmt.value);
    const video = pmt.value.streams.find((s) => videoCodecOf(s) !== undefined);
    this.videoCodec = video ? videoCodecOf(video) : undefined;
    this.scanner = this.videoCodec ? new AccessUnitScanner(this.videoCodec) : undefined;
  }

  /** The video, else the first audio stream we know (not a subtitle or data stream). */
  private timingPidOf(pmt: Pmt): number {
    const video = pmt.streams.find((s) => videoCodecOf(s) !== undefined);
    const audio = pmt.streams.find((s) => audioCodecOf(s) !== undefined);
    return (video ?? audio ?? pmt.streams[0])?.pid ?? -1;
  }
}

function newTable(): Table {
  return { assembler: new SectionAssembler(), packets: [] };
}

function finish(seg: OpenSegment, packets: readonly Buffer[], ticks: number): TsSegment {
  return {
    bytes: Buffer.concat([...seg.tables, ...packets]),
    durationSec: ticks / PTS_CLOCK,
    startPts: seg.startPts,
    discontinuity: seg.discontinuity,
    independent: seg.independent,
  };
}
