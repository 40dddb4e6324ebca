import type { Readable } from "node:stream";
import { classifyError, type EgressFailure } from "./egress-client.js";

export type CappedBody =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly kind: "too_large" }
  | EgressFailure;

/**
 * Reads a response body whole, but never more than `maxBytes` (spec "Limits":
 * `max_playlist_bytes`). Past the ceiling the body is destroyed at once, which
 * closes the upstream connection, and `too_large` is returned; nothing beyond
 * the ceiling is ever buffered. `prefix` is data already read from the stream.
 */
export async function readBodyCapped(
  body: Readable,
  maxBytes: number,
  prefix?: Buffer,
  signal?: AbortSignal,
): Promise<CappedBody> {
  const chunks: Buffer[] = prefix === undefined ? [] : [prefix];
  let total = prefix?.length ?? 0;
  if (total > maxBytes) {
    body.destroy();
    return { ok: false, kind: "too_large" };
  }
  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      total += buf.length;
      if (total > maxBytes) {
        body.destroy();
        return { ok: false, kind: "too_large" };
      }
      chunks.push(buf);
    }
  } catch (err) {
    return classifyError(err, signal);
  }
  return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total) };
}
