import { readPesHeader } from "./pes.js";
import { crc32Mpeg2, parsePat, SectionAssembler } from "./psi.js";
import { PACKET_SIZE, PAT_PID, readPacketHeader } from "./ts-packet.js";

// ISO/IEC 13818-1: the audio of a separate HLS audio rendition as PES units of its own
// transport stream (2.4.3.6), and the PMT entry (2.4.4.8) that declares it.

/** One audio PES of a rendition: its packets (on the rendition's PID) and its PTS. */
export interface AudioUnit {
  readonly pts: number;
  readonly packets: Buffer[];
}

/** The PMT entry of the rendition's audio stream: stream_type and its ES_info descriptors. */
export interface AudioStreamEntry {
  readonly streamType: number;
  readonly esInfo: Buffer;
}

/** One elementary stream of a PMT, its descriptors raw. */
export interface PmtEntry extends AudioStreamEntry {
  readonly pid: number;
}

/** A PMT section split into what a rewrite keeps and the entries it changes. */
export interface PmtParts {
  /** table_id … last_section_number (8 bytes). */
  readonly head: Buffer;
  readonly pcrPid: number;
  readonly programInfo: Buffer;
  readonly entries: readonly PmtEntry[];
}

/** stream_type of audio (Table 2-34, ATSC A/52 0x81, 0x87): MPEG-1/2, AAC ADTS/LATM, AC-3, E-AC-3. */
const AUDIO_TYPES = new Set([0x03, 0x04, 0x0f, 0x11, 0x81, 0x87]);
/** DVB descriptors that make a private stream (0x06) audio: AC-3, E-AC-3, AAC. */
const AUDIO_DESCRIPTORS = new Set([0x6a, 0x7a, 0x7c]);

/** Is this PMT entry an audio stream? */
export function isAudioEntry(e: AudioStreamEntry): boolean {
  if (AUDIO_TYPES.has(e.streamType)) return true;
  if (e.streamType !== 0x06) return false;
  for (let d = 0; d + 2 <= e.esInfo.length; d += 2 + e.esInfo[d + 1]!)
    if (AUDIO_DESCRIPTORS.has(e.esInfo[d]!)) return true;
  return false;
}

/** A PMT section's parts; undefined when it is not a valid PMT. */
export function splitPmt(section: Uint8Array): PmtParts | undefined {
  if (section.length < 16 || section[0] !== 0x02 || crc32Mpeg2(section) !== 0) return undefined;
  const length = ((section[1]! & 0x0f) << 8) | section[2]!;
  if (length + 3 !== section.length) return undefined;
  const end = section.length - 4;
  const pcrPid = ((section[8]! & 0x1f) << 8) | section[9]!;
  const infoLength = ((section[10]! & 0x0f) << 8) | section[11]!;
  if (12 + infoLength > end) return undefined;
  const entries: PmtEntry[] = [];
  for (let i = 12 + infoLength; i + 5 <= end; ) {
    const esLength = ((section[i + 3]! & 0x0f) << 8) | section[i + 4]!;
    if (i + 5 + esLength > end) return undefined;
    entries.push({
      streamType: section[i]!,
      pid: ((section[i + 1]! & 0x1f) << 8) | section[i + 2]!,
      esInfo: Buffer.from(section.subarray(i + 5, i + 5 + esLength)),
    });
    i += 5 + esLength;
  }
  return {
    head: Buffer.from(section.subarray(0, 8)),
    pcrPid,
    programInfo: Buffer.from(section.subarray(12, 12 + infoLength)),
    entries,
  };
}

/** A PMT section of `parts` with `entries` instead of its own (CRC recomputed). */
export function buildPmt(parts: PmtParts, entries: readonly PmtEntry[]): Buffer {
  const body: number[] = [
    0xe0 | (parts.pcrPid >> 8),
    parts.pcrPid & 0xff,
    0xf0 | (parts.programInfo.length >> 8),
    parts.programInfo.length & 0xff,
    ...parts.programInfo,
  ];
  for (const e of entries)
    body.push(
      e.streamType,
      0xe0 | (e.pid >> 8),
      e.pid & 0xff,
      0xf0 | (e.esInfo.length >> 8),
      e.esInfo.length & 0xff,
      ...e.esInfo,
    );
  const s = Buffer.alloc(8 + body.length + 4);
  parts.head.copy(s, 0);
  const length = s.length - 3;
  s[1] = (parts.head[1]! & 0xf0) | (length >> 8);
  s[2] = length & 0xff;
  s.set(body, 8);
  s.writeUInt32BE(crc32Mpeg2(s.subarray(0, s.length - 4)), s.length - 4);
  return s;
}

/**
 * Reads the audio of an audio-only transport stream (a rendition's TS segments, or the TS
 * the packed-audio and fMP4 paths make): PAT, then PMT, then the PES units of its first
 * audio stream with their PTS. What it learnt of the PMT carries over to the next segment.
 * @example
 * const reader = new AudioTsReader();
 * const units = reader.read(packets); // reader.entry: its stream_type and descriptors
 */
export class AudioTsReader {
  private pmtPid: number | undefined;
  private audioPid: number | undefined;
  private readonly pat = new SectionAssembler();
  private readonly pmt = new SectionAssembler();
  /** The audio stream's PMT entry, once a PMT was read. */
  entry: AudioStreamEntry | undefined;

  read(packets: readonly Buffer[]): AudioUnit[] {
    const units: AudioUnit[] = [];
    let current: Buffer[] | undefined;
    for (const p of packets) {
      if (p.length !== PACKET_SIZE) continue;
      const h = readPacketHeader(p);
      if (h.payloadOffset >= PACKET_SIZE) continue;
      const payload = p.subarray(h.payloadOffset);
      if (h.pid === PAT_PID) {
        const section = this.pat.push(payload, h.payloadUnitStart);
        const programs = section ? parsePat(section) : undefined;
        if (programs?.ok && programs.value[0]) this.pmtPid = programs.value[0].pmtPid;
      } else if (h.pid === this.pmtPid) {
        const section = this.pmt.push(payload, h.payloadUnitStart);
        const parts = section ? splitPmt(section) : undefined;
        const audio = parts?.entries.find(isAudioEntry);
        if (audio) {
          this.audioPid = audio.pid;
          this.entry = { streamType: audio.streamType, esInfo: audio.esInfo };
        }
      } else if (h.pid === this.audioPid) {
        if (h.payloadUnitStart) {
          const pts = readPesHeader(payload)?.pts;
          current = pts === undefined ? undefined : [p];
          if (current && pts !== undefined) units.push({ pts, packets: current });
        } else current?.push(p);
      }
    }
    return units;
  }
}
