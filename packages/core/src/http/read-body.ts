import type { Context } from "hono";
import { bodyTooLarge } from "./body-ceiling.js";
import type { AppEnv } from "./types.js";

/** `security.max_body_bytes`' default, for an app built without `bodyCeiling`. */
const DEFAULT_LIMIT = 1_048_576;

/**
 * Reads the request body as it arrives, chunk by chunk, and stops at the ceiling `bodyCeiling`
 * set: one byte over it is a 413 without reading (or keeping) more, chunked or not. The chunks
 * are returned as read, so a large body is never copied into one buffer on the way.
 */
export async function readRequestBody<E extends AppEnv>(c: Context<E>): Promise<Uint8Array[]> {
  const limit = (c.get("bodyLimit") as number | undefined) ?? DEFAULT_LIMIT;
  const body = c.req.raw.body;
  if (body === null) return [];
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    size += value.byteLength;
    if (size > limit) {
      // Not cancel(): that destroys the request and with it the socket, so the client would
      // see a reset instead of the 413. The server discards the rest (discardUnreadBody).
      reader.releaseLock();
      throw bodyTooLarge();
    }
    chunks.push(value);
  }
}
