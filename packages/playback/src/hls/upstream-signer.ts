import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signs and verifies the `u/{upstream}` path of the operator contract ("Wire
 * details"): `{upstream}` is base64url (no padding) of the absolute target URL,
 * followed by the target path's own extension when it has one, and `sig` is
 * base64url HMAC-SHA256 over the channel id and the target URL. Deterministic,
 * so a preload hint and the later part it announces get the same URL.
 */
export interface UpstreamSigner {
  /** `u/{b64}{.ext}?sig={sig}` for `target`, relative to `…/play/{id}/`. */
  sign(channelId: string, target: string): string;
  /**
   * The target URL when `segment` (the `{upstream}` path segment) and `sig`
   * match; undefined for any change to either (compared in constant time).
   */
  verify(channelId: string, segment: string, sig: string | undefined): string | undefined;
}

/** Extensions kept for demuxer selection: a short alphanumeric tail of the target path. */
const EXTENSION = /\.([A-Za-z0-9]{1,8})$/;
const B64URL = /^[A-Za-z0-9_-]+$/;
/** Longest target accepted back from a client; signed URLs are never longer. */
const MAX_TARGET_CHARS = 8192;

/**
 * The extension part of a `u/{upstream}` path segment (`.ts`, `.m3u8`), or "". For a
 * segment that `verify` accepted it is the target's own extension (`verify` refuses any
 * other), so a caller holding a verified target reads it here without parsing the URL.
 */
export function signedExtension(segment: string): string {
  const dot = segment.indexOf(".");
  return dot === -1 ? "" : segment.slice(dot);
}

/** The target path's extension with its dot (`.ts`, `.m3u8`), or "". */
export function targetExtension(target: string): string {
  let path: string;
  try {
    path = new URL(target).pathname;
  } catch {
    return "";
  }
  return EXTENSION.exec(path)?.[0] ?? "";
}

export function createUpstreamSigner(key: Buffer): UpstreamSigner {
  const mac = (channelId: string, target: string): Buffer =>
    // The NUL separator keeps (id, url) pairs from colliding; channel ids cannot contain it.
    createHmac("sha256", key).update(`u\0${channelId}\0${target}`).digest();

  return {
    sign(channelId, target) {
      const encoded = Buffer.from(target, "utf8").toString("base64url");
      return `u/${encoded}${targetExtension(target)}?sig=${mac(channelId, target).toString("base64url")}`;
    },
    verify(channelId, segment, sig) {
      if (sig === undefined || !B64URL.test(sig) || segment.length > MAX_TARGET_CHARS * 2)
        return undefined;
      const extension = signedExtension(segment);
      const encoded = segment.slice(0, segment.length - extension.length);
      if (!B64URL.test(encoded)) return undefined;
      const target = Buffer.from(encoded, "base64url").toString("utf8");
      // Re-encoding must give the same text: rejects padding, stray bits and bad UTF-8.
      if (Buffer.from(target, "utf8").toString("base64url") !== encoded) return undefined;
      // Text comparison: a different spelling of the same bytes is a changed URL (403).
      const expected = Buffer.from(mac(channelId, target).toString("base64url"), "latin1");
      const given = Buffer.from(sig, "latin1");
      const equal = given.length === expected.length && timingSafeEqual(given, expected);
      if (!equal) return undefined;
      if (extension !== targetExtension(target)) return undefined;
      return target;
    },
  };
}
