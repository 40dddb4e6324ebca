/**
 * The media bytes one rendition window keeps, copied into a few large buffers (slabs) that
 * are used again once nothing reads them.
 *
 * Why: V8 counts the `ArrayBuffer` memory allocated since the last full collection against
 * the old generation's limit. Upstream reads kept by the window live for the whole window
 * (seconds), so they are promoted, and every ~8 MiB of media received started a mark-compact
 * of the whole heap: one every 20 s per 3 Mbit/s channel. Removing them took 15 % off a
 * packaged clear channel's CPU and 38-45 % off a ClearKey one at steady state
 * (docs/performance.md "Mark-compacts paced by the media"). Copied into slabs
 * the moment a part is published, the reads die young and the slabs are reused, so the
 * external memory stops growing and the full collections follow the heap's own growth.
 *
 * A slab is reused only when no reference to it is left: each part stored in it holds one
 * until the window drops the part, and each answer writing its bytes holds one until the
 * response closes (`hold`). A reference never given back only keeps the slab from being
 * reused; the slab is then an ordinary buffer the garbage collector frees.
 *
 * @example
 * const arena = new SlabArena();
 * const stored = arena.store(part.bytes, part.byteLength); // one view, one reference
 * const release = arena.hold([stored]);                     // while an answer writes it
 * arena.release(stored);                                    // the window dropped the part
 */
export class SlabArena {
  private slabBytes: number;
  private current: Slab | undefined;
  private readonly free: Slab[] = [];
  private readonly slabs = new WeakMap<ArrayBufferLike, Slab>();
  /** Views whose stored reference was given back: a second release is ignored. */
  private readonly released = new WeakSet<Buffer>();

  constructor(
    /** Size of the first slabs; grows to four times the largest part stored. */
    minSlabBytes = MIN_SLAB_BYTES,
    /** Free slabs kept for reuse; more are left to the garbage collector. */
    private readonly keepFree = 2,
  ) {
    this.slabBytes = minSlabBytes;
  }

  /**
   * Copies `pieces` (`byteLength` bytes in all) into one contiguous view of a slab that
   * holds one reference for it. A part larger than the largest slab gets a buffer of its own.
   */
  store(pieces: readonly Buffer[], byteLength: number): Buffer {
    if (byteLength * 4 > this.slabBytes && this.slabBytes < MAX_SLAB_BYTES) {
      this.slabBytes = Math.min(MAX_SLAB_BYTES, nextPowerOfTwo(byteLength * 4));
      this.free.length = 0;
    }
    if (byteLength > this.slabBytes) return Buffer.concat(pieces as Buffer[], byteLength);
    let slab = this.current;
    if (slab === undefined || slab.used + byteLength > slab.bytes.length) {
      if (slab !== undefined) {
        slab.filling = false;
        this.recycle(slab);
      }
      slab = this.take();
      this.current = slab;
    }
    const view = slab.bytes.subarray(slab.used, slab.used + byteLength);
    let at = 0;
    for (const p of pieces) at += p.copy(view, at);
    slab.used += byteLength;
    slab.refs += 1;
    return view;
  }

  /** Gives back the reference a view returned by {@link store} holds. */
  release(view: Buffer): void {
    const slab = this.slabs.get(view.buffer);
    if (slab === undefined || this.released.has(view)) return;
    this.released.add(view);
    slab.refs -= 1;
    this.recycle(slab);
  }

  /**
   * One more reference to the slab of each of `views` (once per slab), for an answer
   * writing them; the function returned gives them back (once, however often called).
   */
  hold(views: readonly Buffer[]): () => void {
    const held: Slab[] = [];
    for (const v of views) {
      const slab = this.slabs.get(v.buffer);
      if (slab === undefined || held.includes(slab)) continue;
      slab.refs += 1;
      held.push(slab);
    }
    if (held.length === 0) return noop;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      for (const slab of held) {
        slab.refs -= 1;
        this.recycle(slab);
      }
    };
  }

  /** Slabs ready for reuse. */
  freeSlabs(): number {
    return this.free.length;
  }

  private take(): Slab {
    const reused = this.free.pop();
    if (reused !== undefined) {
      reused.used = 0;
      reused.filling = true;
      return reused;
    }
    const slab: Slab = {
      bytes: Buffer.allocUnsafeSlow(this.slabBytes),
      used: 0,
      refs: 0,
      filling: true,
    };
    this.slabs.set(slab.bytes.buffer, slab);
    return slab;
  }

  /** A slab no one reads and no longer being filled goes back to the free list. */
  private recycle(slab: Slab): void {
    if (slab.refs > 0 || slab.filling) return;
    if (slab.bytes.length !== this.slabBytes || this.free.length >= this.keepFree) return;
    if (!this.free.includes(slab)) this.free.push(slab);
  }
}

interface Slab {
  readonly bytes: Buffer;
  /** Bytes handed out since the slab was (re)taken. */
  used: number;
  /** Stored parts still in the window plus answers still writing. */
  refs: number;
  /** The slab new parts go into: not reusable even with no reference. */
  filling: boolean;
}

const MIN_SLAB_BYTES = 64 * 1024;
const MAX_SLAB_BYTES = 8 * 1024 * 1024;

const noop = () => {};

function nextPowerOfTwo(n: number): number {
  return 2 ** Math.ceil(Math.log2(n));
}
