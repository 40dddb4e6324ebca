import { createHash } from "node:crypto";

/**
 * The nibble permutation of SiliconDust's device-id check (libhdhomerun
 * `hdhomerun_discover_validate_device_id`): a valid id's odd nibbles (from the top),
 * mapped through it, XORed with its even nibbles, give 0.
 */
const PERMUTE = [0xa, 0x5, 0xf, 0x6, 0x7, 0xc, 0x1, 0xb, 0x9, 0x2, 0x8, 0xd, 0x4, 0x3, 0xe, 0x0];

/** XOR of the id's nibbles as the check reads them; 0 for a valid id. */
export function deviceIdCheck(id: number): number {
  let sum = 0;
  for (let shift = 28; shift >= 0; shift -= 8) {
    sum ^= PERMUTE[(id >>> shift) & 0xf]!;
    sum ^= (id >>> (shift - 4)) & 0xf;
  }
  return sum;
}

/** True when `hex` is 8 hex digits whose check digit is right (as Plex verifies it). */
export function isValidDeviceId(hex: string): boolean {
  return /^[0-9A-Fa-f]{8}$/.test(hex) && deviceIdCheck(Number.parseInt(hex, 16)) === 0;
}

/**
 * The HDHomeRun `DeviceID` of a playback key: 8 upper-case hex digits, stable for the
 * key (derived from its id, never from its secret), the last one the check digit.
 * Never `FFFFFFFF` (the discovery wildcard) nor `00000000`, which pass the check too.
 *
 * @example
 * deviceIdOf("pk_4f1c…") // "1A2B3C4D"-like, isValidDeviceId(...) === true
 */
export function deviceIdOf(keyId: string): string {
  const digest = createHash("sha256").update(`hdhomerun-device\0${keyId}`).digest();
  for (let at = 0; at <= digest.length - 4; at += 4) {
    // The low nibble is the check digit: XORed in last, it cancels the rest.
    const body = (digest.readUInt32BE(at) & 0xfffffff0) >>> 0;
    const id = (body | deviceIdCheck(body)) >>> 0;
    if (id !== 0 && id !== 0xffffffff) return id.toString(16).toUpperCase().padStart(8, "0");
  }
  return "1000000F"; // eight unusable words in a row: not expected of SHA-256
}
