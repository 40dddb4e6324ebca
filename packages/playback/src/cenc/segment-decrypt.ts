import { ok, type Result } from "../mp4/parse-result.js";
import { DecryptEngine } from "./decrypt-engine.js";
import type { KeyTable } from "./kid.js";
import type { DecryptContext } from "./track-protection.js";

/**
 * Decrypts a whole buffer: a complete file (init + fragments), or a media segment
 * when `context` comes from {@link decryptInit} on its init segment.
 *
 * @example
 * const init = decryptInit(initBytes);
 * if (!init.ok) return init;
 * const seg = decryptSegment(segmentBytes, { keys, context: init.value.context });
 */
export function decryptSegment(
  buf: Buffer,
  options: { keys: KeyTable; context?: DecryptContext; maxBoxBytes?: number },
): Result<Buffer> {
  const out = decryptPieces([buf], options);
  return out.ok ? ok(Buffer.concat(out.value)) : out;
}

/**
 * Decrypts bytes given as consecutive pieces (the reads they arrived in) without joining
 * them: the output pieces are views of the input where it was clear and the cipher's
 * output where it was not, in order.
 */
export function decryptPieces(
  pieces: readonly Buffer[],
  options: { keys: KeyTable; context?: DecryptContext; maxBoxBytes?: number },
): Result<Buffer[]> {
  const engine = new DecryptEngine(options);
  const out: Buffer[] = [];
  for (const p of pieces) {
    const r = engine.write(p);
    if (!r.ok) return r;
    for (const b of r.value) out.push(b);
  }
  const tail = engine.end();
  if (!tail.ok) return tail;
  for (const b of tail.value) out.push(b);
  return ok(out);
}
