// ISO/IEC 13818-1 2.4.3.2 (transport packet) and 2.4.3.4 (adaptation field).

export const PACKET_SIZE = 188;
export const SYNC_BYTE = 0x47;
export const PAT_PID = 0x0000;
export const NULL_PID = 0x1fff;

/** The header fields of one 188-byte transport packet the segmenter needs. */
export interface TsPacketHeader {
  readonly pid: number;
  readonly payloadUnitStart: boolean;
  readonly continuityCounter: number;
  /** random_access_indicator of the adaptation field (false without one). */
  readonly randomAccess: boolean;
  /** discontinuity_indicator of the adaptation field. */
  readonly discontinuity: boolean;
  /** Offset of the payload in the packet; 188 when the packet carries none. */
  readonly payloadOffset: number;
}

/** PID of a transport packet (its 13 bits after the sync byte). */
export function packetPid(packet: Uint8Array): number {
  return ((packet[1]! & 0x1f) << 8) | packet[2]!;
}

/**
 * Reads the header of `packet` (exactly 188 bytes, sync byte first). A transport error
 * or an adaptation field longer than the packet is reported as a packet without payload.
 * @example readPacketHeader(packet).pid // 0x100
 */
export function readPacketHeader(packet: Uint8Array): TsPacketHeader {
  const b1 = packet[1]!;
  const b3 = packet[3]!;
  const pid = packetPid(packet);
  const control = (b3 >> 4) & 0x3;
  let payloadOffset = 4;
  let randomAccess = false;
  let discontinuity = false;
  if (control & 0x2) {
    const afLength = packet[4]!;
    if (afLength > 0) {
      const flags = packet[5]!;
      discontinuity = (flags & 0x80) !== 0;
      randomAccess = (flags & 0x40) !== 0;
    }
    payloadOffset = 5 + afLength;
  }
  const hasPayload = (control & 0x1) !== 0 && payloadOffset < PACKET_SIZE && (b1 & 0x80) === 0;
  return {
    pid,
    payloadUnitStart: (b1 & 0x40) !== 0,
    continuityCounter: b3 & 0x0f,
    randomAccess,
    discontinuity,
    payloadOffset: hasPayload ? payloadOffset : PACKET_SIZE,
  };
}
