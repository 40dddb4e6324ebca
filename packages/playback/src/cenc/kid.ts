/** A content key table: lowercase 32-hex-digit KID → 16-byte AES key. */
export type KeyTable = ReadonlyMap<string, Buffer>;

/** Lowercase hex of a 16-byte KID, the form used as {@link KeyTable} key. */
export function kidHex(kid: Buffer): string {
  return kid.toString("hex");
}

/** KID in the UUID form used by `cenc:default_KID` (ISO/IEC 23001-7 §11.2): 8-4-4-4-12 hex groups. */
export function kidToUuid(kid: Buffer | string): string {
  const h = typeof kid === "string" ? kid.toLowerCase() : kid.toString("hex");
  if (!/^[0-9a-f]{32}$/.test(h)) throw new TypeError("KID must be 16 bytes");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Builds a {@link KeyTable} from hex strings (e.g. the config's `media.keys`),
 * accepting KIDs with or without UUID dashes. Returns the first bad entry as an error.
 */
export function keyTableFromHex(
  entries: Record<string, string>,
):
  | { ok: true; value: Map<string, Buffer> }
  | { ok: false; error: { box: string; message: string } } {
  const out = new Map<string, Buffer>();
  for (const [kid, key] of Object.entries(entries)) {
    const k = kid.replace(/-/g, "").toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(k))
      return { ok: false, error: { box: "tenc", message: `invalid KID ${JSON.stringify(kid)}` } };
    // The key itself is never echoed into an error message.
    if (!/^[0-9a-fA-F]{32}$/.test(key))
      return {
        ok: false,
        error: { box: "tenc", message: `invalid key for KID ${k}: expected 32 hex digits` },
      };
    out.set(k, Buffer.from(key, "hex"));
  }
  return { ok: true, value: out };
}
