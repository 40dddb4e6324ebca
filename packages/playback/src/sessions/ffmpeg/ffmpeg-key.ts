import type { KeyTable } from "../../cenc/kid.js";

/**
 * The one key ffmpeg gets. ffmpeg 5.1 takes a single `-cenc_decryption_key` and applies it
 * to every track whatever its KID, so the source must need at most one distinct key.
 * `keys` is the channel's table (its `keys` over `media.keys`, see `channelKeyTable`).
 * Errors name KIDs, never keys.
 * - clear source → no key;
 * - known KIDs → their key, if all of them map to the same key;
 * - encrypted without a declared KID → the only configured key, if there is exactly one.
 */
export function chooseFfmpegKey(
  source: { encrypted: boolean; kids: readonly string[] },
  keys: KeyTable,
): { ok: true; value: string | undefined } | { ok: false; error: string } {
  if (!source.encrypted) return { ok: true, value: undefined };
  const hex = (kids: Iterable<string>) => {
    const out = new Set<string>();
    for (const kid of kids) {
      const key = keys.get(kid);
      if (key !== undefined) out.add(key.toString("hex"));
    }
    return out;
  };
  if (source.kids.length === 0) {
    const distinct = hex(keys.keys());
    const only = [...distinct][0];
    if (distinct.size === 1 && only !== undefined) return { ok: true, value: only };
    return {
      ok: false,
      error:
        distinct.size === 0
          ? "the source is encrypted and no keys are configured"
          : "the source declares no KID and several keys are configured; ffmpeg takes one",
    };
  }
  const missing = source.kids.find((kid) => !keys.has(kid));
  if (missing !== undefined) return { ok: false, error: `no key is configured for KID ${missing}` };
  const distinct = hex(source.kids);
  const only = [...distinct][0];
  if (distinct.size === 1 && only !== undefined) return { ok: true, value: only };
  return {
    ok: false,
    error: `the source uses ${distinct.size} different keys (KIDs ${source.kids.join(", ")}); ffmpeg applies one`,
  };
}
