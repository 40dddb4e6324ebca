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
  const engine = new DecryptEngine(options);
  const body = engine.write(buf);
  if (!body.ok) return body;
  const tail = engine.end();
  if (!tail.ok) return tail;
  return ok(Buffer.concat([...body.value, ...tail.value]));
}
