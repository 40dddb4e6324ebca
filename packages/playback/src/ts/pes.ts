// PES packet header: ISO/IEC 13818-1 2.4.3.6 / 2.4.3.7.

/** Media timestamps are 33-bit counts of a 90 kHz clock. */
export const PTS_CLOCK = 90_000;
export const PTS_WRAP = 2 ** 33;

export interface PesHeader {
  readonly streamId: number;
  readonly pts?: number;
  readonly dts?: number;
  /** Offset of the elementary stream data from the start of the PES packet. */
  readonly payloadOffset: number;
}

/**
 * Reads the PES header at the start of `bytes` (the payload of a unit-start packet);
 * undefined when it is not a PES start code or is cut short.
 * @example readPesHeader(payload)?.pts // 126000
 */
export function readPesHeader(bytes: Uint8Array): PesHeader | undefined {
  if (bytes.length < 9 || bytes[0] !== 0 || bytes[1] !== 0 || bytes[2] !== 1) return undefined;
  const streamId = bytes[3]!;
  // Streams without the optional header (2.4.3.7: padding, private_stream_2, ECM, …).
  if (
    streamId === 0xbc ||
    streamId === 0xbe ||
    streamId === 0xbf ||
    streamId === 0xf0 ||
    streamId === 0xf1 ||
    streamId === 0xff ||
    streamId === 0xf2 ||
    streamId === 0xf8
  )
    return { streamId, payloadOffset: 6 };
  if ((bytes[6]! & 0xc0) !== 0x80) return undefined;
  const flags = bytes[7]! >> 6;
  const headerLength = bytes[8]!;
  const payloadOffset = 9 + headerLength;
  let pts: number | undefined;
  let dts: number | undefined;
  if (flags & 0x2) {
    if (bytes.length < 14) return undefined;
    pts = readTimestamp(bytes, 9);
    if (flags === 0x3 && bytes.length >= 19) dts = readTimestamp(bytes, 14);
  }
  return {
    streamId,
    payloadOffset,
    ...(pts === undefined ? {} : { pts }),
    ...(dts === undefined ? {} : { dts }),
  };
}

/** The 33-bit timestamp in 5 bytes with marker bits (2.4.3.7). */
function readTimestamp(b: Uint8Array, at: number): number {
  return (
    ((b[at]! >> 1) & 0x07) * 2 ** 30 +
    (b[at + 1]! << 22) +
    ((b[at + 2]! >> 1) << 15) +
    (b[at + 3]! << 7) +
    (b[at + 4]! >> 1)
  );
}

/**
 * `to - from` in 90 kHz ticks across the 2^33 wrap: the shortest signed distance, so a
 * timestamp just past the wrap is a small step forward, not a jump back of 26.5 hours.
 * @example ptsDelta(2 ** 33 - 3600, 3600) // 7200
 */
export function ptsDelta(from: number, to: number): number {
  let d = (to - from) % PTS_WRAP;
  if (d < 0) d += PTS_WRAP;
  return d >= PTS_WRAP / 2 ? d - PTS_WRAP : d;
}
