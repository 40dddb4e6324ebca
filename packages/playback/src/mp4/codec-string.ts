import type { AvcConfig, EsdsConfig, HevcConfig } from "./codec-config.js";

const hex2 = (n: number): string => n.toString(16).padStart(2, "0");

/** RFC 6381 §3.3: `avc1.PPCCLL` from the avcC profile, compatibility and level bytes. */
export function avcCodecString(entryType: string, c: AvcConfig): string {
  return `${entryType}.${hex2(c.profile)}${hex2(c.compatibility)}${hex2(c.level)}`;
}

/**
 * ISO/IEC 14496-15 Annex E: `hvc1.[A-C]?profile.compat.(L|H)level[.constraint bytes]`,
 * compatibility flags bit-reversed in hex, trailing zero constraint bytes omitted.
 */
export function hevcCodecString(entryType: string, c: HevcConfig): string {
  const space = ["", "A", "B", "C"][c.profileSpace] ?? "";
  let reversed = 0;
  for (let i = 0; i < 32; i++) if (c.compatibilityFlags & (1 << i)) reversed |= 1 << (31 - i);
  const compat = (reversed >>> 0).toString(16);
  const bytes = [...c.constraintFlags];
  while (bytes.length > 0 && bytes[bytes.length - 1] === 0) bytes.pop();
  const constraints = bytes.map((b) => `.${b.toString(16).toUpperCase()}`).join("");
  return `${entryType}.${space}${c.profile}.${compat}.${c.tier ? "H" : "L"}${c.level}${constraints}`;
}

/** RFC 6381 §3.3 with the MP4 registration: `mp4a.40.<AOT>` for MPEG-4 audio, else `mp4a.<OTI hex>`. */
export function mp4aCodecString(c: EsdsConfig): string {
  if (c.objectTypeIndication === 0x40 && c.audioObjectType !== undefined)
    return `mp4a.40.${c.audioObjectType}`;
  return `mp4a.${c.objectTypeIndication.toString(16).toUpperCase().padStart(2, "0")}`;
}
