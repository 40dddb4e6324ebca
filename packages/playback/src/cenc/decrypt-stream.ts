import { Transform, type TransformCallback } from "node:stream";
import type { Mp4Error } from "../mp4/parse-result.js";
import { DecryptEngine, type DecryptOptions } from "./decrypt-engine.js";

/** Error emitted by {@link createDecryptStream}; `detail` carries the box and reason. */
export class CencStreamError extends Error {
  readonly detail: Mp4Error;
  constructor(detail: Mp4Error) {
    super(`${detail.box}: ${detail.message}`);
    this.name = "CencStreamError";
    this.detail = detail;
  }
}

/**
 * A Transform that turns an encrypted fMP4 byte stream into a clear one, sample by sample.
 * Malformed input or a missing key ends the stream with a {@link CencStreamError}.
 *
 * @example
 * await pipeline(upstreamBody, createDecryptStream({ keys, context }), res);
 */
export function createDecryptStream(options: DecryptOptions): Transform {
  const engine = new DecryptEngine(options);
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      const r = engine.write(chunk);
      if (!r.ok) return done(new CencStreamError(r.error));
      for (const b of r.value) this.push(b);
      done();
    },
    flush(done: TransformCallback) {
      const r = engine.end();
      if (!r.ok) return done(new CencStreamError(r.error));
      for (const b of r.value) this.push(b);
      done();
    },
  });
}
