import type { WindowPart } from "../publisher/rendition-window.js";
import type { ChunkBytes } from "./chunk-assembler.js";

/**
 * Groups consecutive CMAF chunks of one segment into LL-HLS parts of about a part target
 * (RFC 8216bis 4.4.4.9), so a one-frame-per-chunk LL-DASH source does not publish 25
 * parts a second. A part is `k` chunks, `k = floor(target / longest chunk)` and at least
 * 1: a part is never shorter than a source chunk, never longer than `k` times the
 * longest chunk (the PART-TARGET the engine publishes); every part but the last of its
 * segment holds `k` chunks, so with even chunks it lasts the whole ceiling (4.4.4.9 asks
 * at least 85 % of PART-TARGET of all but a segment's last part). INDEPENDENT=YES when
 * the part's first chunk starts with a sync sample. A part is its chunks' pieces in order,
 * never joined into a copy.
 *
 * @example
 * const c = new PartCoalescer(0.4);
 * const part = c.add(chunk, 0.04, true); // undefined until ten 40 ms chunks are in
 * const tail = c.flush();                     // at the end of the segment
 */
export class PartCoalescer {
  private chunks = 0;
  private pieces: Buffer[] = [];
  private byteLength = 0;
  private durationSec = 0;
  private independent = false;
  /** Longest chunk of the rendition so far: sets how many chunks make a part. */
  private longestChunkSec = 0;

  constructor(private targetSec: number) {}

  /**
   * The channel was published with this PART-TARGET: from now on the grouping aims at it,
   * so a longer chunk later makes parts of fewer chunks instead of parts above PART-TARGET
   * (RFC 8216bis 4.4.4.9: a part MUST NOT exceed it; 4.4.3.7: it never changes).
   */
  retarget(partTargetSec: number): void {
    this.targetSec = partTargetSec;
  }

  /** The longest chunk seen so far (seconds); 0 before the first. */
  longestChunk(): number {
    return this.longestChunkSec;
  }

  /** The part duration ceiling with the chunks seen so far (PART-TARGET). */
  ceilingSec(): number {
    if (this.longestChunkSec === 0) return this.targetSec;
    return this.chunksPerPart() * this.longestChunkSec;
  }

  private chunksPerPart(): number {
    return Math.max(1, Math.floor(this.targetSec / this.longestChunkSec + 1e-9));
  }

  /** Adds one chunk; returns the part it completes, if any. */
  add(chunk: ChunkBytes, durationSec: number, startsWithSync: boolean): WindowPart | undefined {
    if (this.chunks === 0) this.independent = startsWithSync;
    this.chunks += 1;
    for (const p of chunk.pieces) this.pieces.push(p);
    this.byteLength += chunk.byteLength;
    this.durationSec += durationSec;
    if (durationSec > this.longestChunkSec) this.longestChunkSec = durationSec;
    // Another chunk as long as the longest would overflow the ceiling: the part is done.
    if (this.chunks >= this.chunksPerPart()) return this.flush();
    return undefined;
  }

  /** The bytes held for the part in progress (views, not copies). */
  held(): readonly Buffer[] {
    return this.pieces;
  }

  /** Closes the part in progress (the segment ended); undefined when none is open. */
  flush(): WindowPart | undefined {
    if (this.chunks === 0) return undefined;
    const part: WindowPart = {
      bytes: this.pieces,
      byteLength: this.byteLength,
      durationSec: this.durationSec,
      independent: this.independent,
    };
    this.reset();
    return part;
  }

  /** Drops the part in progress (a failed segment). */
  reset(): void {
    this.chunks = 0;
    this.pieces = [];
    this.byteLength = 0;
    this.durationSec = 0;
    this.independent = false;
  }
}
