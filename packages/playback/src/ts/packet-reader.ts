import { PACKET_SIZE, SYNC_BYTE } from "./ts-packet.js";

/** How many bytes a stream may start with before it is judged not to be MPEG-TS. */
export const SYNC_SEARCH_BYTES = 64 * 1024;
/** Sync bytes at 188-byte steps that lock the reader onto the packet grid. */
const LOCK_PACKETS = 3;
/** Bytes of a new chunk joined to the carried ones: the carry (< 3 packets) plus 4 packets. */
const JOIN_BYTES = PACKET_SIZE * (LOCK_PACKETS + 1);

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
 * Packets are views of the chunks pushed when they lie inside one chunk; only the bytes
 * carried from one chunk to the next (a partial packet, or one waiting for the next sync
 * byte) are copied, with the few hundred bytes of the next chunk that complete them.
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
    const packets: Buffer[] = [];
    const carry = this.carry;
    this.carry = undefined;
    if (carry === undefined) return this.scan(chunk, 0, packets);
    // A short chunk is joined whole (a few hundred bytes). A long one is not copied: only
    // the carried bytes and enough of the chunk's head to finish (and confirm) the packets
    // that start in the carry are joined; the rest is read in place.
    if (chunk.length <= JOIN_BYTES) return this.scan(Buffer.concat([carry, chunk]), 0, packets);
    const joint = Buffer.concat([carry, chunk.subarray(0, JOIN_BYTES)]);
    const at = this.scanJoint(joint, carry.length, packets);
    return this.scan(chunk, at - carry.length, packets);
  }

  /**
   * Takes the packets of `joint` that start before `limit` (the carried bytes); returns
   * where the reading goes on. Every offset before `limit` has three packets' worth of
   * bytes after it in `joint`, so a lock or a confirmation is never missed here.
   */
  private scanJoint(joint: Buffer, limit: number, packets: Buffer[]): number {
    let at = 0;
    while (at < limit) {
      if (!this.locked) {
        const found = findLock(joint, at);
        if (found < 0 || found >= limit) {
          this.dropped(limit - at);
          return limit;
        }
        this.dropped(found - at);
        at = found;
        this.locked = true;
        this.everLocked = true;
      }
      if (joint[at] !== SYNC_BYTE || joint[at + PACKET_SIZE] !== SYNC_BYTE) {
        this.locked = false;
        continue;
      }
      packets.push(joint.subarray(at, at + PACKET_SIZE));
      at += PACKET_SIZE;
    }
    return at;
  }

  /** Reads `buf` from `at` to its end; what is left over is carried to the next push. */
  private scan(buf: Buffer, from: number, packets: Buffer[]): PacketReaderResult {
    let at = from;
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
    // Only the partial (or unconfirmed) packet is copied, never the chunk.
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
