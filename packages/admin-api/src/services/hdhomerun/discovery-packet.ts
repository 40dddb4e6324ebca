import { crc32 } from "node:zlib";

/**
 * The HDHomeRun discovery packet (SiliconDust's UDP 65001 protocol): a big-endian
 * `type` and payload length, TLV fields (1-byte tag, 1 or 2-byte length), then the
 * CRC-32 (IEEE, as zlib computes it) of everything before it, little-endian.
 */
export const DISCOVER_REQUEST = 0x0002;
export const DISCOVER_REPLY = 0x0003;

export const TAG_DEVICE_TYPE = 0x01;
export const TAG_DEVICE_ID = 0x02;
export const TAG_TUNER_COUNT = 0x10;
export const TAG_BASE_URL = 0x2a;

export const DEVICE_TYPE_TUNER = 0x00000001;
export const DEVICE_TYPE_WILDCARD = 0xffffffff;
export const DEVICE_ID_WILDCARD = 0xffffffff;

/** Largest request handled: a real one is 20 bytes; nothing bigger is read further. */
export const MAX_REQUEST_BYTES = 1460;

export interface DiscoverRequest {
  /** Absent: any type. */
  readonly deviceType?: number;
  /** Absent: any device. */
  readonly deviceId?: number;
}

/** A TLV length: one byte up to 127, else two (low 7 bits first, with the top bit set). */
function lengthBytes(n: number): number[] {
  return n <= 0x7f ? [n] : [(n & 0x7f) | 0x80, n >> 7];
}

function tlv(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag, ...lengthBytes(value.length)]), value]);
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** A whole packet of `type` around `payload`, with its CRC. */
export function framePacket(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE(payload.length, 2);
  const body = Buffer.concat([head, payload]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(body) >>> 0);
  return Buffer.concat([body, crc]);
}

/**
 * Reads a discover request; undefined for anything else (wrong type, a length that
 * disagrees with the datagram, a bad CRC, a truncated field): such packets are dropped
 * without an answer.
 */
export function parseDiscoverRequest(packet: Buffer): DiscoverRequest | undefined {
  if (packet.length < 8 || packet.length > MAX_REQUEST_BYTES) return undefined;
  if (packet.readUInt16BE(0) !== DISCOVER_REQUEST) return undefined;
  const length = packet.readUInt16BE(2);
  if (4 + length + 4 !== packet.length) return undefined;
  const body = packet.subarray(0, 4 + length);
  if (crc32(body) >>> 0 !== packet.readUInt32LE(4 + length)) return undefined;
  let deviceType: number | undefined;
  let deviceId: number | undefined;
  let at = 4;
  while (at < body.length) {
    const tag = body[at]!;
    let len = body[at + 1];
    if (len === undefined) return undefined;
    at += 2;
    if (len & 0x80) {
      const high = body[at];
      if (high === undefined) return undefined;
      len = (len & 0x7f) | (high << 7);
      at += 1;
    }
    if (at + len > body.length) return undefined;
    const value = body.subarray(at, at + len);
    at += len;
    if (tag === TAG_DEVICE_TYPE && len === 4) deviceType = value.readUInt32BE(0);
    else if (tag === TAG_DEVICE_ID && len === 4) deviceId = value.readUInt32BE(0);
  }
  return {
    ...(deviceType === undefined || deviceType === DEVICE_TYPE_WILDCARD ? {} : { deviceType }),
    ...(deviceId === undefined || deviceId === DEVICE_ID_WILDCARD ? {} : { deviceId }),
  };
}

export interface DiscoverDevice {
  /** 8 hex digits. */
  readonly deviceId: string;
  readonly tunerCount: number;
  readonly baseUrl: string;
}

/** True when `request` asks for this device (a tuner, its id or any). */
export function requestMatches(request: DiscoverRequest, device: DiscoverDevice): boolean {
  if (request.deviceType !== undefined && request.deviceType !== DEVICE_TYPE_TUNER) return false;
  return (
    request.deviceId === undefined || request.deviceId === Number.parseInt(device.deviceId, 16)
  );
}

/**
 * The reply: device type, id, tuner count and base URL, nothing else (clients read the
 * lineup URL from `discover.json`, so it is not repeated here).
 */
export function discoverReply(device: DiscoverDevice): Buffer {
  return framePacket(
    DISCOVER_REPLY,
    Buffer.concat([
      tlv(TAG_DEVICE_TYPE, u32(DEVICE_TYPE_TUNER)),
      tlv(TAG_DEVICE_ID, u32(Number.parseInt(device.deviceId, 16))),
      tlv(TAG_TUNER_COUNT, Buffer.from([Math.min(255, device.tunerCount)])),
      tlv(TAG_BASE_URL, Buffer.from(device.baseUrl, "utf8")),
    ]),
  );
}

/** A discover request as a client sends it (tests, and the docs' example). */
export function discoverRequest(
  deviceType = DEVICE_TYPE_TUNER,
  deviceId = DEVICE_ID_WILDCARD,
): Buffer {
  return framePacket(
    DISCOVER_REQUEST,
    Buffer.concat([tlv(TAG_DEVICE_TYPE, u32(deviceType)), tlv(TAG_DEVICE_ID, u32(deviceId))]),
  );
}
