import { type BatchMode, EcbBatch } from "./ecb-batch.js";
import type { SampleOutput } from "./sample-output.js";

/** Room before position 0 of the work buffer for bytes held back from the previous slice (< one AES block). */
const PREFIX = 16;
/** Batches larger than this run before taking more work, to stay cache-sized. */
const BATCH_LIMIT = 64 * 1024;
/** A clear gap this short is copied to keep one output piece; a longer one is passed through as is. */
const GAP_COPY = 512;

/**
 * Output of one input slice of mdat payload, without copying what it can avoid: clear
 * ranges go out as `subarray`s of the input, native cipher output goes out as is, and
 * only ranges rewritten in place by an {@link EcbBatch} are copied into a work buffer
 * (allocated per slice, because the pieces it yields are handed downstream).
 */
export class SliceOutput implements SampleOutput {
  private src: Buffer = Buffer.alloc(0);
  private out: Buffer[] = [];
  private emitFrom = 0;
  private held = 0;
  private work: Buffer | null = null;
  private validFrom = 0;
  private validTo = 0;
  private readonly batch = new EcbBatch();

  /** Bytes of earlier slices held back (part of an AES block). */
  get heldBytes(): number {
    return this.held;
  }

  /** Starts a slice; its output pieces are appended to `out`. */
  begin(src: Buffer, out: Buffer[]): void {
    this.src = src;
    this.out = out;
    this.emitFrom = -this.held;
    this.held = 0;
    this.work = null;
  }

  /** Emits what is left of the slice. */
  finish(): void {
    this.flush(this.src.length);
    this.work = null;
    this.src = EMPTY;
  }

  batchFor(key: Buffer, mode: BatchMode): EcbBatch {
    if (!this.batch.accepts(key, mode) || this.batch.bytes > BATCH_LIMIT) this.runBatch();
    return this.batch;
  }

  claim(at: number, end: number): void {
    const src = this.src;
    if (!this.work) {
      this.work = Buffer.allocUnsafe(src.length + PREFIX);
      this.validFrom = at;
      this.validTo = at;
    } else if (at > this.validTo + GAP_COPY || this.emitFrom > this.validTo) {
      // Close the current region and start a new one: the gap is long or already emitted.
      this.flush(this.validTo);
      this.validFrom = at;
      this.validTo = at;
    }
    const from = Math.max(this.validTo, 0);
    if (end > from) src.copy(this.work, from + PREFIX, from, end);
    if (end > this.validTo) this.validTo = end;
  }

  piece(at: number, end: number, bytes: Buffer): void {
    this.flush(at);
    this.out.push(bytes);
    this.emitFrom = end;
  }

  hold(at: number): void {
    this.flush(at);
    this.held = this.src.length - at;
    this.emitFrom = this.src.length;
  }

  private runBatch(): void {
    if (this.work) this.batch.run(this.src, this.work, PREFIX);
  }

  /** Emits `[emitFrom, to)`: from the work buffer inside the rewritten region, else from the input. */
  private flush(to: number): void {
    this.runBatch();
    let a = this.emitFrom;
    if (to <= a) return;
    const work = this.work;
    if (work) {
      if (a < this.validFrom) {
        const e = Math.min(to, this.validFrom);
        this.emitInput(a, e);
        a = e;
      }
      if (a < to && a < this.validTo) {
        const e = Math.min(to, this.validTo);
        this.out.push(work.subarray(a + PREFIX, e + PREFIX));
        a = e;
      }
    }
    if (a < to) this.emitInput(a, to);
    this.emitFrom = to;
  }

  private emitInput(a: number, b: number): void {
    const src = this.src;
    this.out.push(a === 0 && b === src.length ? src : src.subarray(a, b));
  }
}

const EMPTY = Buffer.alloc(0);
