import { normalizeKid } from "../../dash/inspection/protection-check.js";

/**
 * The one key ffmpeg gets. ffmpeg 5.1 takes a single `-cenc_decryption_key` and applies it
 * to every track whatever its KID, so the source must need at most one distinct key.
 * Channel `keys` override `media.keys` per KID. Errors name KIDs, never keys.
 * - clear source → no key;
 * - known KIDs → their key, if all of them map to the same key;
 * - encrypted without a declared KID → the only configured key, if there is exactly one.
 */
export function chooseFfmpegKey(
  source: { encrypted: boolean; kids: readonly string[] },
  channelKeys: Readonly<Record<string, string>>,
  globalKeys: Readonly<Record<string, string>>,
): { ok: true; value: string | undefined } | { ok: false; error: string } {
  if (!source.encrypted) return { ok: true, value: undefined };
  const table = new Map<string, string>();
  for (const [kid, key] of Object.entries(globalKeys))
    table.set(normalizeKid(kid), key.toLowerCase());
  for (const [kid, key] of Object.entries(channelKeys))
    table.set(normalizeKid(kid), key.toLowerCase());
  if (source.kids.length === 0) {
    const keys = new Set(table.values());
    const only = [...keys][0];
    if (keys.size === 1 && only !== undefined) return { ok: true, value: only };
    return {
      ok: false,
      error:
        keys.size === 0
          ? "the source is encrypted and no keys are configured"
          : "the source declares no KID and several keys are configured; ffmpeg takes one",
    };
  }
  const keys = new Set<string>();
  for (const kid of source.kids.map(normalizeKid)) {
    const key = table.get(kid);
    if (key === undefined) return { ok: false, error: `no key is configured for KID ${kid}` };
    keys.add(key);
  }
  const only = [...keys][0];
  if (keys.size === 1 && only !== undefined) return { ok: true, value: only };
  return {
    ok: false,
    error: `the source uses ${keys.size} different keys (KIDs ${source.kids.join(", ")}); ffmpeg applies one`,
  };
}
