import { PacketReader, SYNC_SEARCH_BYTES } from "./packet-reader.js";

/** What the first bytes of a source are, whatever its content type says. */
export type StreamFormat = "ts" | "hls" | "dash" | "unknown";

/**
 * Tells MPEG-TS from a playlist by the bytes (extensions "MPEG-TS ingress"): TS when
 * {@link PacketReader} locks onto 0x47 at a 188-byte stride, HLS when the text starts with
 * `#EXTM3U`, DASH for an MPD. Pure; {@link sniffStreamFormat} feeds it from a stream.
 * @example streamFormatOf(head) // "ts"
 */
export function streamFormatOf(head: Buffer, ended: boolean): StreamFormat | undefined {
  const reader = new PacketReader();
  const r = reader.push(head);
  if (r.ok && r.packets.length > 0) return "ts";
  const text = head
    .subarray(0, 64)
    .toString("latin1")
    .replace(/^\xEF\xBB\xBF/, "")
    .trimStart();
  if (text.startsWith("#EXTM3U")) return "hls";
  if (text.startsWith("<MPD") || (text.startsWith("<?xml") && head.includes("<MPD"))) return "dash";
  return ended || head.length >= SYNC_SEARCH_BYTES ? "unknown" : undefined;
}

/**
 * Reads at most the first 64 KiB of `body` until {@link streamFormatOf} decides. The caller
 * destroys the body afterwards (a live TS never ends on its own).
 */
export async function sniffStreamFormat(body: AsyncIterable<Buffer>): Promise<StreamFormat> {
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of body) {
      head = Buffer.concat([head, chunk]).subarray(0, SYNC_SEARCH_BYTES);
      const format = streamFormatOf(head, false);
      if (format !== undefined) return format;
    }
  } catch {
    // A body cut short is judged by what arrived.
  }
  // The iterator's return() closed the body when the loop was left early.
  return streamFormatOf(head, true) ?? "unknown";
}
