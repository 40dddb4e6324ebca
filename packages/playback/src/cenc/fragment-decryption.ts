import { representationProtection } from "../dash/inspection/protection-check.js";
import type { ChunkBytes, CmafChunk } from "../dash/segmenter/chunk-assembler.js";
import type {
  FragmentTransform,
  FragmentTransformFactory,
} from "../dash/segmenter/fragment-transform.js";
import { IDENTITY_TRANSFORM } from "../dash/segmenter/fragment-transform.js";
import { fail, ok, type Result } from "../mp4/parse-result.js";
import { decryptInit } from "./init-decrypt.js";
import { type KeyTable, kidHex } from "./kid.js";
import { decryptPieces } from "./segment-decrypt.js";
import type { DecryptContext } from "./track-protection.js";

/** ISO/IEC 23001-7 schemes {@link decryptPieces} implements. */
const SCHEMES = new Set(["cenc", "cens", "cbc1", "cbcs"]);

/**
 * The native engine's fragment transform for ClearKey CENC (issue 6): a representation
 * is decrypted with the channel's key table (channel `keys` over `media.keys`, built by
 * the caller). Before the session starts, every `cenc:default_KID` the MPD declares must
 * have a key: a missing one fails the session with a reason naming the KID (never the
 * key). Schemes the decryptor lacks were already left to the compatibility engine by the
 * inspection (`dash/inspection/protection-check.ts`). The init segment decides at run time: a protected one (`encv`/`enca`)
 * is turned clear and its fragments decrypted; a clear one passes through untouched,
 * so parts can stream while they arrive.
 *
 * @example
 * const transforms = decryptingTransforms((id) => keyTableOf(catalog.get(id)));
 * createSessionManager({ config, catalog, egress, transforms });
 */
export function decryptingTransforms(
  keysOf: (channelId: string) => KeyTable,
): FragmentTransformFactory {
  return ({ channelId, representation }) => {
    const keys = keysOf(channelId);
    for (const kid of representationProtection(representation).kids)
      if (!keys.has(kid)) return { ok: false, reason: `no key is configured for KID ${kid}` };
    return { ok: true, transform: new DecryptingTransform(keys) };
  };
}

/** One rendition's decryptor: the init fixes the context, each chunk is decrypted whole. */
class DecryptingTransform implements FragmentTransform {
  private context: DecryptContext | undefined;
  private clear = false;

  constructor(private readonly keys: KeyTable) {}

  passthrough(): boolean {
    return this.clear;
  }

  init(bytes: Buffer): Result<Buffer> {
    const r = decryptInit(bytes);
    if (!r.ok) return r;
    const protectedEntries = [...r.value.context.tracks.values()].flatMap((t) =>
      t.entries.filter((e) => e !== null),
    );
    this.clear = protectedEntries.length === 0;
    if (this.clear) {
      this.context = undefined;
      return IDENTITY_TRANSFORM.init(bytes);
    }
    for (const e of protectedEntries) {
      if (!SCHEMES.has(e.scheme))
        return fail("schm", `unsupported protection scheme '${e.scheme}'`);
      const kid = kidHex(e.defaults.kid);
      if (e.defaults.isProtected && !this.keys.has(kid))
        return fail("tenc", `no key is configured for KID ${kid}`);
    }
    this.context = r.value.context;
    return ok(r.value.init);
  }

  /**
   * Decrypts the chunk read by read, as it arrived: the clear bytes come out as views of
   * the reads and the cipher's output as it returns it, never joined (the pieces are
   * served with one `writev`).
   */
  chunk(chunk: CmafChunk): Result<ChunkBytes> {
    if (this.clear) return ok(chunk);
    if (this.context === undefined) return fail("moof", "fragment before its init segment");
    const r = decryptPieces(chunk.pieces, { keys: this.keys, context: this.context });
    if (!r.ok) return r;
    let byteLength = 0;
    for (const b of r.value) byteLength += b.length;
    return ok({ pieces: r.value, byteLength });
  }
}
