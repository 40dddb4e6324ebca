// Program-specific information: ISO/IEC 13818-1 2.4.4 (PAT 2.4.4.3, PMT 2.4.4.8).

/** CRC-32/MPEG-2 (poly 0x04C11DB7, init 0xFFFFFFFF, no reflection, no final xor): Annex A. */
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** CRC-32/MPEG-2 of `bytes`; over a whole section including its CRC field it is 0. */
export function crc32Mpeg2(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  return crc >>> 0;
}

export type PsiResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string };

/** One elementary stream of a PMT. */
export interface PmtStream {
  readonly pid: number;
  readonly streamType: number;
  /** descriptor tags of the ES_info loop (0x6A AC-3, 0x7A E-AC-3 in DVB, 0x05 registration). */
  readonly descriptorTags: readonly number[];
  /** format_identifier of a registration descriptor (0x05), e.g. "AC-3", "EAC3", "HEVC". */
  readonly registration?: string;
}

export interface Pmt {
  readonly programNumber: number;
  readonly pcrPid: number;
  readonly streams: readonly PmtStream[];
}

export interface PatProgram {
  readonly programNumber: number;
  readonly pmtPid: number;
}

/**
 * Checks a complete section (table_id … CRC_32) and returns the bytes between the
 * 8-byte long-form header and the CRC.
 */
function sectionBody(section: Uint8Array, tableId: number, name: string): PsiResult<Uint8Array> {
  if (section.length < 12) return { ok: false, error: `${name}: section too short` };
  if (section[0] !== tableId)
    return { ok: false, error: `${name}: table_id ${section[0]} is not ${tableId}` };
  const length = ((section[1]! & 0x0f) << 8) | section[2]!;
  if (length + 3 !== section.length)
    return { ok: false, error: `${name}: section_length ${length} does not match` };
  if (crc32Mpeg2(section) !== 0) return { ok: false, error: `${name}: CRC-32 mismatch` };
  return { ok: true, value: section.subarray(8, section.length - 4) };
}

/** program_association_section (2.4.4.3): the programs and their PMT PIDs (network PID excluded). */
export function parsePat(section: Uint8Array): PsiResult<PatProgram[]> {
  const body = sectionBody(section, 0x00, "PAT");
  if (!body.ok) return body;
  const b = body.value;
  const out: PatProgram[] = [];
  for (let i = 0; i + 4 <= b.length; i += 4) {
    const programNumber = (b[i]! << 8) | b[i + 1]!;
    const pid = ((b[i + 2]! & 0x1f) << 8) | b[i + 3]!;
    if (programNumber !== 0) out.push({ programNumber, pmtPid: pid });
  }
  return { ok: true, value: out };
}

/** TS_program_map_section (2.4.4.8). */
export function parsePmt(section: Uint8Array): PsiResult<Pmt> {
  const body = sectionBody(section, 0x02, "PMT");
  if (!body.ok) return body;
  const b = body.value;
  if (b.length < 4) return { ok: false, error: "PMT: section too short" };
  const programNumber = (section[3]! << 8) | section[4]!;
  const pcrPid = ((b[0]! & 0x1f) << 8) | b[1]!;
  const programInfoLength = ((b[2]! & 0x0f) << 8) | b[3]!;
  let i = 4 + programInfoLength;
  const streams: PmtStream[] = [];
  while (i + 5 <= b.length) {
    const streamType = b[i]!;
    const pid = ((b[i + 1]! & 0x1f) << 8) | b[i + 2]!;
    const esInfoLength = ((b[i + 3]! & 0x0f) << 8) | b[i + 4]!;
    const end = i + 5 + esInfoLength;
    if (end > b.length) return { ok: false, error: "PMT: ES_info_length past the section" };
    const descriptorTags: number[] = [];
    let registration: string | undefined;
    for (let d = i + 5; d + 2 <= end; ) {
      const tag = b[d]!;
      const len = b[d + 1]!;
      descriptorTags.push(tag);
      if (tag === 0x05 && len >= 4)
        registration = Buffer.from(b.subarray(d + 2, d + 6)).toString("latin1");
      d += 2 + len;
    }
    streams.push({
      pid,
      streamType,
      descriptorTags,
      ...(registration === undefined ? {} : { registration }),
    });
    i = end;
  }
  return { ok: true, value: { programNumber, pcrPid, streams } };
}

/**
 * Gathers one PSI section per PID from packet payloads (pointer_field at a unit start,
 * 2.4.4.2). Only the first section of a unit start is read: PAT and PMT of a single
 * program fit one section, and a repeat comes with the next unit start.
 */
export class SectionAssembler {
  private parts: Buffer[] = [];
  private have = 0;
  private need = -1;

  /** Feeds one packet payload; returns a complete section when this payload finished one. */
  push(payload: Uint8Array, unitStart: boolean): Uint8Array | undefined {
    if (unitStart) {
      const pointer = payload[0] ?? 0;
      const start = 1 + pointer;
      this.parts = [];
      this.have = 0;
      this.need = -1;
      if (start >= payload.length) return undefined;
      return this.add(payload.subarray(start));
    }
    if (this.need < 0 && this.have === 0) return undefined;
    return this.add(payload);
  }

  private add(bytes: Uint8Array): Uint8Array | undefined {
    this.parts.push(Buffer.from(bytes));
    this.have += bytes.length;
    if (this.need < 0 && this.have >= 3) {
      const head = Buffer.concat(this.parts);
      if (head[0] === 0xff) return this.clear();
      this.need = 3 + (((head[1]! & 0x0f) << 8) | head[2]!);
    }
    if (this.need >= 0 && this.have >= this.need) {
      const section = Buffer.concat(this.parts).subarray(0, this.need);
      this.clear();
      return section;
    }
    if (this.have > 4096) return this.clear();
    return undefined;
  }

  private clear(): undefined {
    this.parts = [];
    this.have = 0;
    this.need = -1;
    return undefined;
  }
}
