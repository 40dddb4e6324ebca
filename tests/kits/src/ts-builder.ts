// Literal transport packets for the unit tests: just enough of a muxer (ISO/IEC 13818-1)
// to write PAT, PMT and one-packet PES frames with chosen timestamps and flags.

/**
 * CRC-32/MPEG-2 (ISO/IEC 13818-1 Annex A: polynomial 0x04C11DB7, initial value all
 * ones, no reflection), bit by bit: the reference the gateway's table-driven CRC is
 * checked against, so a wrong table cannot also write the sections it accepts.
 */
function crc32Mpeg2(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return crc >>> 0;
}

export interface PacketSpec {
  readonly pid: number;
  readonly unitStart?: boolean;
  readonly cc?: number;
  readonly randomAccess?: boolean;
  readonly payload: Uint8Array;
}

/** One 188-byte packet; the payload is padded with adaptation-field stuffing. */
export function packet(s: PacketSpec): Buffer {
  const p = Buffer.alloc(188, 0xff);
  p[0] = 0x47;
  p[1] = (s.unitStart ? 0x40 : 0) | ((s.pid >> 8) & 0x1f);
  p[2] = s.pid & 0xff;
  const room = 184;
  const needAf = s.randomAccess === true || s.payload.length < room;
  if (s.payload.length > room - (needAf ? 2 : 0)) throw new RangeError("payload too long");
  if (!needAf) {
    p[3] = 0x10 | ((s.cc ?? 0) & 0xf);
    Buffer.from(s.payload).copy(p, 4);
    return p;
  }
  const afLength = room - 1 - s.payload.length;
  p[3] = 0x30 | ((s.cc ?? 0) & 0xf);
  p[4] = afLength;
  if (afLength > 0) p[5] = s.randomAccess ? 0x40 : 0x00;
  Buffer.from(s.payload).copy(p, 5 + afLength);
  return p;
}

/** A long-form section with its CRC-32/MPEG-2. */
export function section(tableId: number, idExt: number, body: number[]): Buffer {
  const length = 5 + body.length + 4;
  const head = [
    tableId,
    0xb0 | ((length >> 8) & 0x0f),
    length & 0xff,
    idExt >> 8,
    idExt & 0xff,
    0xc1,
    0,
    0,
  ];
  const noCrc = Buffer.from([...head, ...body]);
  const crc = crc32Mpeg2(noCrc);
  const out = Buffer.alloc(noCrc.length + 4);
  noCrc.copy(out);
  out.writeUInt32BE(crc, noCrc.length);
  return out;
}

export function patSection(pmtPid: number): Buffer {
  return section(0x00, 1, [0, 1, 0xe0 | (pmtPid >> 8), pmtPid & 0xff]);
}

export interface StreamSpec {
  readonly type: number;
  readonly pid: number;
  readonly descriptors?: number[];
}

export function pmtSection(pcrPid: number, streams: readonly StreamSpec[]): Buffer {
  const body = [0xe0 | (pcrPid >> 8), pcrPid & 0xff, 0xf0, 0];
  for (const s of streams) {
    const d = s.descriptors ?? [];
    body.push(
      s.type,
      0xe0 | (s.pid >> 8),
      s.pid & 0xff,
      0xf0 | (d.length >> 8),
      d.length & 0xff,
      ...d,
    );
  }
  return section(0x02, 1, body);
}

/** The payload of a PSI unit start: pointer_field 0, then the section. */
export function psiPayload(sectionBytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([0]), sectionBytes]);
}

function timestamp(prefix: number, t: number): number[] {
  const hi = Math.floor(t / 2 ** 30) & 0x7;
  const mid = Math.floor(t / 2 ** 15) & 0x7fff;
  const lo = t % 2 ** 15;
  return [
    (prefix << 4) | (hi << 1) | 1,
    mid >> 7,
    ((mid & 0x7f) << 1) | 1,
    lo >> 7,
    ((lo & 0x7f) << 1) | 1,
  ];
}

/** A PES header with PTS (and DTS when given). */
export function pesHeader(streamId: number, pts: number, dts?: number): Buffer {
  const ts =
    dts === undefined ? timestamp(0x2, pts) : [...timestamp(0x3, pts), ...timestamp(0x1, dts)];
  return Buffer.from([
    0,
    0,
    1,
    streamId,
    0,
    0,
    0x80,
    dts === undefined ? 0x80 : 0xc0,
    ts.length,
    ...ts,
  ]);
}

export const H264_AUD = [0, 0, 0, 1, 0x09, 0xf0];
export const H264_SPS = [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1e, 0xac, 0xd9];
export const H264_PPS = [0, 0, 0, 1, 0x68, 0xeb, 0xe3, 0xcb];
export const H264_IDR = [0, 0, 1, 0x65, 0x88, 0x84];
export const H264_NON_IDR = [0, 0, 1, 0x41, 0x9a, 0x02];

/**
 * A program with H.264 video on 0x100 and AAC on 0x101: `frames` video frames at 25 fps
 * from `startPts` (one packet each), an IDR every `gop` frames, an audio PES after each
 * video frame, PAT and PMT before every IDR.
 */
export function program(o: {
  frames: number;
  gop: number;
  startPts: number;
  firstIdrAt?: number;
  idrByRaiOnly?: boolean;
  jumpAtFrame?: number;
  jumpTicks?: number;
}): Buffer[] {
  const out: Buffer[] = [];
  let cc = 0;
  const pat = psiPayload(patSection(0x1000));
  const pmt = psiPayload(
    pmtSection(0x100, [
      { type: 0x1b, pid: 0x100 },
      { type: 0x0f, pid: 0x101 },
    ]),
  );
  for (let f = 0; f < o.frames; f++) {
    const idr = f >= (o.firstIdrAt ?? 0) && (f - (o.firstIdrAt ?? 0)) % o.gop === 0;
    if (idr || f === 0) {
      out.push(packet({ pid: 0, unitStart: true, payload: pat }));
      out.push(packet({ pid: 0x1000, unitStart: true, payload: pmt }));
    }
    let pts =
      o.startPts +
      f * 3600 +
      (o.jumpAtFrame !== undefined && f >= o.jumpAtFrame ? (o.jumpTicks ?? 0) : 0);
    pts %= 2 ** 33;
    const es = idr
      ? o.idrByRaiOnly
        ? [...H264_AUD, ...H264_NON_IDR]
        : [...H264_AUD, ...H264_SPS, ...H264_PPS, ...H264_IDR]
      : [...H264_AUD, ...H264_NON_IDR];
    out.push(
      packet({
        pid: 0x100,
        unitStart: true,
        cc: cc++,
        randomAccess: idr && o.idrByRaiOnly === true,
        payload: Buffer.concat([pesHeader(0xe0, pts, pts), Buffer.from(es)]),
      }),
    );
    out.push(
      packet({
        pid: 0x101,
        unitStart: true,
        cc: f,
        payload: Buffer.concat([pesHeader(0xc0, pts), Buffer.from([0xff, 0xf1, 0x50, 0x80])]),
      }),
    );
  }
  return out;
}
