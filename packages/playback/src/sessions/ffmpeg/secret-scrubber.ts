/** What replaces a secret in anything we store or log. */
export const REDACTED = "[redacted]";

/** Secrets shorter than this are not scrubbed by value: replacing `1` everywhere would garble the text. */
const MIN_SECRET_LENGTH = 4;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A 128-bit key in the spellings a tool may print it in: hex (any case) and base64. */
export function keySpellings(hexKey: string): string[] {
  if (!/^[0-9a-fA-F]{32}$/.test(hexKey)) return [hexKey];
  const bytes = Buffer.from(hexKey, "hex");
  return [hexKey, bytes.toString("base64"), bytes.toString("base64url")];
}

/**
 * Removes credentials from a URL-bearing text: userinfo and query strings of every http(s)
 * URL (signed source URLs carry tokens there).
 */
export function scrubUrls(text: string): string {
  return text
    .replace(/\b(https?:\/\/)[^\s/@"'<>]+@/gi, `$1${REDACTED}@`)
    .replace(/\b(https?:\/\/[^\s?#"'<>]*)\?[^\s#"'<>]*/gi, `$1?${REDACTED}`);
}

/**
 * Builds a scrubber for one ffmpeg session: every given secret (ClearKey key spellings,
 * header values) is replaced, case-insensitively, then URL credentials are removed.
 * @example createScrubber(keySpellings(key))("key 00ff… rejected") // "key [redacted] rejected"
 */
export function createScrubber(secrets: readonly string[]): (text: string) => string {
  const usable = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  const pattern =
    usable.length === 0 ? undefined : new RegExp(usable.map(escapeRegExp).join("|"), "gi");
  return (text) => scrubUrls(pattern === undefined ? text : text.replace(pattern, REDACTED));
}
