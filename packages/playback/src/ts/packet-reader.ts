import { PACKET_SIZE, SYNC_BYTE } from "./ts-packet.js";

/** How many bytes a stream may start with before it is judged not to be MPEG-TS. */
export const SYNC_SEARCH_BYTES = 64 * 1024;
/** Sync bytes at 188-byte steps that lock the reader onto the packet grid. */
const LOCK_PACKETS = 3;

export type PacketReaderResult =
  | { readonly ok: true; readonly packets: Buffer[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Cuts a byte stream into 188-byte transport packets (ISO/IEC 13818-1 2.4.3.2). The
 * content type is not trusted, the sync bytes are: the reader locks onto the grid once it
 * sees 0x47 three times 188 bytes apart, drops bytes that break the grid and locks again
 * (resync), and refuses a stream that never locks within its first 64 KiB, with a reason
 * naming what it looks like instead (an HLS playlist, HTML, …).
 *
 * Packets are views of the chunks pushed when they lie inside one chunk; a packet split
 * across two chunks is the only one copied.
 * @example
 * const reader = new PacketReader();
 * const r = reader.push(chunk); // { ok: true, packets: [Buffer(188), …] }
 */
export class PacketReader {
  private carry: Buffer | undefined;
  private locked = false;
  private everLocked = false;
  private seen = 0;
  private head: Buffer | undefined;
  /** Bytes dropped to regain the packet grid after the first lock. */
  droppedBytes = 0;

  push(chunk: Buffer): PacketReaderResult {
    if (!this.everLocked && (this.head?.length ?? 0) < 16)
      this.head = Buffer.concat([this.head ?? Buffer.alloc(0), chunk.subarray(0, 16)]);
    const buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    const packets: Buffer[] = [];
    let at = 0;
    for (;;) {
      if (!this.locked) {
        const found = findLock(buf, at);
        if (found < 0) {
          // Keep the tail that could still start a lock once more bytes arrive.
          const keepFrom = Math.max(at, buf.length - PACKET_SIZE * LOCK_PACKETS);
          this.dropped(keepFrom - at);
          this.carry = Buffer.from(buf.subarray(keepFrom));
          if (!this.everLocked && this.seen > SYNC_SEARCH_BYTES)
            return { ok: false, reason: notTsReason(this.head ?? buf, this.seen) };
          return { ok: true, packets };
        }
        this.dropped(found - at);
        at = found;
        this.locked = true;
        this.everLocked = true;
      }
      // A packet is taken once the next one's sync byte is in view and confirms the grid:
      // a stray 0x47 in garbage where a packet should start does not pass for one.
      if (buf.length - at <= PACKET_SIZE) break;
      if (buf[at] !== SYNC_BYTE || buf[at + PACKET_SIZE] !== SYNC_BYTE) {
        this.locked = false;
        continue;
      }
      packets.push(buf.subarray(at, at + PACKET_SIZE));
      at += PACKET_SIZE;
    }
    if (at < buf.length) this.carry = Buffer.from(buf.subarray(at));
    return { ok: true, packets };
  }

  /** The input ended: the last whole packet, which no following sync byte confirmed. */
  flush(): Buffer[] {
    const c = this.carry;
    this.carry = undefined;
    if (this.locked && c !== undefined && c.length === PACKET_SIZE && c[0] === SYNC_BYTE)
      return [c];
    return [];
  }

  /** Why the stream is not MPEG-TS when it ended before the reader ever locked; else undefined. */
  refusalAtEnd(): string | undefined {
    if (this.everLocked) return undefined;
    if (this.head === undefined || this.head.length === 0) return "the source sent no bytes";
    return notTsReason(this.head, this.seen + (this.carry?.length ?? 0));
  }

  /** Forgets the grid and any partial packet (a new connection). */
  reset(): void {
    this.carry = undefined;
    this.locked = false;
  }

  private dropped(n: number): void {
    if (this.everLocked) this.droppedBytes += n;
    else this.seen += n;
  }
}

/** First offset from `from` where 0x47 repeats at three 188-byte steps, or -1. */
function findLock(buf: Buffer, from: number): number {
  const last = buf.length - PACKET_SIZE * (LOCK_PACKETS - 1) - 1;
  for (let i = from; i <= last; i++) {
    if (buf[i] !== SYNC_BYTE) continue;
    let ok = true;
    for (let k = 1; k < LOCK_PACKETS; k++)
      if (buf[i + k * PACKET_SIZE] !== SYNC_BYTE) {
        ok = false;
        break;
      }
    if (ok) return i;
  }
  return -1;
}

/** Why the first bytes of a stream are not MPEG-TS, in words an operator can act on. */
export function notTsReason(head: Uint8Array, searched: number): string {
  const text = Buffer.from(head.subarray(0, 16))
    .toString("latin1")
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, "");
  const start = text.trimStart();
  const base = `no MPEG-TS sync bytes (0x47 every 188 bytes) in the first ${Math.min(searched, SYNC_SEARCH_BYTES)} bytes`;
  if (start.startsWith("#EXTM3U"))
    return `${base}: the source answers an HLS playlist (use ingress: hls)`;
  if (start.startsWith("<?xml") || start.startsWith("<MPD"))
    return `${base}: the source answers XML (an MPD? use ingress: dash)`;
  if (/^<(!doctype|html)/i.test(start)) return `${base}: the source answers an HTML page`;
  if (start.startsWith("{") || start.startsWith("[")) return `${base}: the source answers JSON`;
  if (head[4] === 0x66 && head[5] === 0x74 && head[6] === 0x79 && head[7] === 0x70)
    return `${base}: the source answers MP4 (ftyp)`;
  return base;
}
