import { writeFullBox } from "./mp4-boxes.js";

/** KID as `cenc:default_KID` writes it (ISO/IEC 23001-7 §11.2): 8-4-4-4-12 lowercase hex. */
export function kidToUuid(kid: Buffer | string): string {
  const h = typeof kid === "string" ? kid.toLowerCase() : kid.toString("hex");
  if (!/^[0-9a-f]{32}$/.test(h)) throw new TypeError("KID must be 16 bytes");
  return [h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20)].join("-");
}

/** W3C ClearKey system ID (https://w3c.github.io/encrypted-media/format-registry/initdata/cenc.html). */
export const CLEARKEY_SYSTEM_ID = "1077efecc0b24d02ace33c1e52e2fb4b";

/** A version 1 `pssh` (ISO/IEC 23001-7 §8.1) for ClearKey listing the KIDs and carrying no data. */
export function clearKeyPssh(kids: Buffer[]): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(kids.length, 0);
  return writeFullBox(
    "pssh",
    1,
    0,
    Buffer.from(CLEARKEY_SYSTEM_ID, "hex"),
    count,
    ...kids,
    Buffer.alloc(4),
  );
}

/**
 * MPD `ContentProtection` elements for an AdaptationSet: the scheme-independent
 * `urn:mpeg:dash:mp4protection:2011` descriptor with `cenc:default_KID` (ISO/IEC 23009-1 §5.8.5.2,
 * ISO/IEC 23001-7 §11.2) and the ClearKey system descriptor with its `pssh` in `cenc:pssh`.
 * The enclosing MPD must declare `xmlns:cenc="urn:mpeg:cenc:2013"`.
 */
export function contentProtectionXml(
  scheme: string,
  defaultKid: Buffer,
  kids: Buffer[] = [defaultKid],
): string {
  const kid = kidToUuid(defaultKid);
  const pssh = clearKeyPssh(kids).toString("base64");
  return [
    `<ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="${scheme}" cenc:default_KID="${kid}"/>`,
    `<ContentProtection schemeIdUri="urn:uuid:${kidToUuid(CLEARKEY_SYSTEM_ID)}" value="ClearKey1.0">`,
    `  <cenc:pssh>${pssh}</cenc:pssh>`,
    `</ContentProtection>`,
  ].join("\n");
}
