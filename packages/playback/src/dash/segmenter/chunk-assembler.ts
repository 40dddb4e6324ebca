import { peekBoxHeader } from "../../mp4/box-reader.js";
import { fail, ok, type Result } from "../../mp4/parse-result.js";

/** Boxes that may precede a moof and belong to its chunk (ISO/IEC 23000-19 7.3.2). */
const PREFIX_BOXES = new Set(["styp", "prft", "emsg", "sidx", "free", "skip"]);

/**
 * Cuts a media segment arriving as a byte stream into CMAF chunks
 * (`[styp|prft|emsg…] moof mdat`, ISO/IEC 23000-19 7.3.2.3) as soon as each chunk's
 * last byte arrives: each one becomes an LL-HLS part (RFC 8216bis 4.4.4.9). Only the
 * chunk in progress is buffered, never more than `maxChunkBytes`.
 *
 * @example
 * const a = new ChunkAssembler(16 << 20);
 * for await (const data of body) for (const chunk of unwrap(a.push(data))) publishPart(chunk);
 */
export class ChunkAssembler {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Offset (within the pending bytes) of the next box header to read. */
  private next = 0;
  private sawMoof = false;
  /** Pending byte count at which the box being waited for is complete (no work before). */
  private waitFor = 0;
  /** Bytes of the segment seen so far. */
  total = 0;

  constructor(private readonly maxChunkBytes: number) {}

  /** Appends bytes; returns the chunks that completed with them. */
  push(data: Buffer): Result<Buffer[]> {
    this.total += data.length;
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes > this.maxChunkBytes)
      return fail("moof", `CMAF chunk larger than ${this.maxChunkBytes} bytes`);
    // Small pieces of a large mdat: nothing to cut until the box is complete, so do
    // not join (copy) the pending pieces on every push.
    if (this.pendingBytes < this.waitFor) return ok([]);
    this.waitFor = 0;
    const out: Buffer[] = [];
    let buf = this.pending.length === 1 ? data : Buffer.concat(this.pending, this.pendingBytes);
    for (;;) {
      const head = peekBoxHeader(buf, this.next);
      if (head.kind === "need-more") break;
      if (head.kind === "invalid") return fail("file", head.message);
      if (head.size === null)
        return fail(head.type, "box size 0 (to end of file) in a live segment");
      if (buf.length - this.next < head.size) {
        this.waitFor = this.next + head.size;
        break;
      }
      const end = this.next + head.size;
      if (head.type === "moof") {
        if (this.sawMoof) return fail("moof", "moof follows a moof without an mdat");
        this.sawMoof = true;
      } else if (head.type === "mdat") {
        if (!this.sawMoof) return fail("mdat", "mdat without a preceding moof");
        // A view, not a copy: `buf` is the upstream's own read buffer (or one joined here
        // from several), never reused by it; a segment is served as its parts, not joined.
        out.push(buf.subarray(0, end));
        buf = buf.subarray(end);
        this.next = 0;
        this.sawMoof = false;
        continue;
      } else if (this.sawMoof || !PREFIX_BOXES.has(head.type)) {
        return fail(head.type, `unexpected ${head.type} in a media segment`);
      }
      this.next = end;
    }
    this.pending = buf.length === 0 ? [] : [buf];
    this.pendingBytes = buf.length;
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
        this.sawMoof ? "mdat" : "moof",
        `segment ends inside a chunk (${this.pendingBytes} bytes)`,
      );
    return ok(undefined);
  }
}
