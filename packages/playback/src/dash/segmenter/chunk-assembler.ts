import { peekBoxHeader } from "../../mp4/box-reader.js";
import { fail, ok, type Result } from "../../mp4/parse-result.js";

/** Boxes that may precede a moof and belong to its chunk (ISO/IEC 23000-19 7.3.2). */
const PREFIX_BOXES = new Set(["styp", "prft", "emsg", "sidx", "free", "skip"]);

/** Longest box header: 64-bit size (16) plus a `uuid` extended type (16). */
const MAX_HEADER = 32;

/** Bytes held as a list of pieces in order (served with one `writev`, never joined). */
export interface ChunkBytes {
  readonly pieces: readonly Buffer[];
  readonly byteLength: number;
}

/** One CMAF chunk (`[styp|prft|emsg…] moof mdat`), as the reads it arrived in. */
export interface CmafChunk extends ChunkBytes {
  /**
   * Contiguous bytes from the chunk's first byte through at least the end of its `moof`
   * (what `inspectFragment` reads). A view of the first read, or a small copy when a
   * read ended inside the prefix boxes or the `moof`.
   */
  readonly head: Buffer;
}

/** A chunk held in one buffer (a decrypted chunk, a test fixture). */
export function wholeChunk(bytes: Buffer): CmafChunk {
  return { pieces: [bytes], byteLength: bytes.length, head: bytes };
}

/**
 * Cuts a media segment arriving as a byte stream into CMAF chunks
 * (`[styp|prft|emsg…] moof mdat`, ISO/IEC 23000-19 7.3.2.3) as soon as each chunk's
 * last byte arrives: each one becomes (part of) an LL-HLS part (RFC 8216bis 4.4.4.9).
 * Only the chunk in progress is held, never more than `maxChunkBytes`, and it is never
 * joined: a chunk is the list of the reads it arrived in (views), and only a box header
 * or a `moof` that a read boundary split is copied, so the media bytes go from the
 * socket to the viewer's `writev` without a copy.
 *
 * @example
 * const a = new ChunkAssembler(16 << 20);
 * for await (const data of body) for (const chunk of unwrap(a.push(data))) publish(chunk);
 */
export class ChunkAssembler {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Offset (within the pending bytes) of the next box header to read. */
  private next = 0;
  /** Offset just past the chunk's `moof`; 0 until it is complete. */
  private moofEnd = 0;
  /** Pending byte count at which the box being waited for is complete (no work before). */
  private waitFor = 0;
  /** Bytes of the segment seen so far. */
  total = 0;

  constructor(private readonly maxChunkBytes: number) {}

  /** Appends bytes; returns the chunks that completed with them. */
  push(data: Buffer): Result<CmafChunk[]> {
    this.total += data.length;
    if (data.length === 0) return ok([]);
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes > this.maxChunkBytes)
      return fail("moof", `CMAF chunk larger than ${this.maxChunkBytes} bytes`);
    // Small pieces of a large mdat: nothing to cut until the box is complete.
    if (this.pendingBytes < this.waitFor) return ok([]);
    this.waitFor = 0;
    const out: CmafChunk[] = [];
    for (;;) {
      const head = peekBoxHeader(
        this.bytes(this.next, Math.min(this.pendingBytes, this.next + MAX_HEADER)),
        0,
      );
      if (head.kind === "need-more") break;
      if (head.kind === "invalid") return fail("file", head.message);
      if (head.size === null)
        return fail(head.type, "box size 0 (to end of file) in a live segment");
      const end = this.next + head.size;
      if (this.pendingBytes < end) {
        this.waitFor = end;
        break;
      }
      if (head.type === "moof") {
        if (this.moofEnd !== 0) return fail("moof", "moof follows a moof without an mdat");
        this.moofEnd = end;
      } else if (head.type === "mdat") {
        if (this.moofEnd === 0) return fail("mdat", "mdat without a preceding moof");
        out.push(this.take(end));
        continue;
      } else if (this.moofEnd !== 0 || !PREFIX_BOXES.has(head.type)) {
        return fail(head.type, `unexpected ${head.type} in a media segment`);
      }
      this.next = end;
    }
    return ok(out);
  }

  /** Bytes of the chunk in progress received so far (views, not copies). */
  inProgress(): readonly Buffer[] {
    return this.pending;
  }

  /** The segment ended: any bytes left over are a truncated chunk. */
  end(): Result<void> {
    if (this.pendingBytes > 0)
      return fail(
        this.moofEnd !== 0 ? "mdat" : "moof",
        `segment ends inside a chunk (${this.pendingBytes} bytes)`,
      );
    return ok(undefined);
  }

  /** Pending bytes `[start, end)`: a view when one read holds them, else a copy. */
  private bytes(start: number, end: number): Buffer {
    let at = 0;
    for (let i = 0; i < this.pending.length; i++) {
      const p = this.pending[i]!;
      if (start < at + p.length) {
        if (end <= at + p.length) return p.subarray(start - at, end - at);
        const copy = Buffer.allocUnsafe(end - start);
        let filled = 0;
        for (let j = i; filled < copy.length; j++) {
          const q = this.pending[j]!;
          const from = j === i ? start - at : 0;
          filled += q.copy(copy, filled, from, Math.min(q.length, from + copy.length - filled));
        }
        return copy;
      }
      at += p.length;
    }
    return Buffer.alloc(0);
  }

  /** Cuts the first `end` pending bytes off as a chunk; the rest starts the next one. */
  private take(end: number): CmafChunk {
    const head = this.bytes(0, this.moofEnd);
    const pieces: Buffer[] = [];
    let at = 0;
    let i = 0;
    for (; i < this.pending.length && at < end; i++) {
      const p = this.pending[i]!;
      if (at + p.length <= end) {
        pieces.push(p);
        at += p.length;
        continue;
      }
      // The read that holds the chunk's last byte also starts the next chunk.
      pieces.push(p.subarray(0, end - at));
      this.pending[i] = p.subarray(end - at);
      at = end;
      break;
    }
    this.pending = this.pending.slice(i);
    this.pendingBytes -= end;
    this.next = 0;
    this.moofEnd = 0;
    return { pieces, byteLength: end, head };
  }
}
