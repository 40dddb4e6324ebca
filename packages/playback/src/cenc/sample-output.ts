import { type BatchMode, EcbBatch } from "./ecb-batch.js";

/**
 * Where a {@link SampleDecryptor} puts clear bytes. Positions index the input being fed;
 * a negative position names bytes held back from the previous input slice.
 * Bytes the decryptor never touches are clear and pass through unchanged.
 */
export interface SampleOutput {
  /** The batch for `key`/`mode`, after running queued work of another key or mode. */
  batchFor(key: Buffer, mode: BatchMode): EcbBatch;
  /** Makes `[at, end)` writable for the batch; calls come in increasing position order. */
  claim(at: number, end: number): void;
  /** `bytes` replace input `[at, end)`. */
  piece(at: number, end: number, bytes: Buffer): void;
  /** Input `[at, end of slice)` is kept by the decryptor (an incomplete cipher block). */
  hold(at: number): void;
}

/** Output into the input buffer itself (the buffer API's in-place decryption). */
export class InPlaceOutput implements SampleOutput {
  private data: Buffer = Buffer.alloc(0);
  private readonly batch = new EcbBatch();

  /** Targets `data`; every later position indexes it. */
  begin(data: Buffer): void {
    this.data = data;
  }

  batchFor(key: Buffer, mode: BatchMode): EcbBatch {
    // No size limit here: a CBC job reads its predecessor block from the input, which a
    // run would already have overwritten in place. One sample bounds the batch.
    if (!this.batch.accepts(key, mode)) this.finish();
    return this.batch;
  }

  claim(): void {
    // The input is the output: every position is already writable.
  }

  piece(at: number, _end: number, bytes: Buffer): void {
    bytes.copy(this.data, at);
  }

  hold(): void {
    // Held bytes stay where they are and are rewritten once their block is complete.
  }

  /** Runs queued batch work into the buffer. */
  finish(): void {
    this.batch.run(this.data, this.data, 0);
  }
}
