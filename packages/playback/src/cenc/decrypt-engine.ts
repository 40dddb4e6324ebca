import { type BoxHeader, peekBoxHeader } from "../mp4/box-reader.js";
import { type Failure, fail, ok, type Result } from "../mp4/parse-result.js";
import { type PlannedSample, planFragment } from "./fragment-plan.js";
import { decryptInit } from "./init-decrypt.js";
import type { KeyTable } from "./kid.js";
import { decryptSampleInPlace } from "./sample-decrypt.js";
import type { DecryptContext } from "./track-protection.js";

/** Options of a {@link DecryptEngine}. */
export interface DecryptOptions {
  keys: KeyTable;
  /** Context of a separately delivered init segment; a `moov` in the stream replaces it. */
  context?: DecryptContext;
  /** Ceiling for a buffered `moov`/`moof` (default 16 MiB). */
  maxBoxBytes?: number;
}

type Mode =
  | { kind: "header" }
  | { kind: "buffer"; type: string; size: number }
  | { kind: "pass"; remaining: number }
  | { kind: "drop"; remaining: number }
  | { kind: "mdat"; remaining: number };

interface Assembly {
  buf: Buffer;
  filled: number;
  sample: PlannedSample;
}

/** Boxes removed from the output because their byte ranges no longer hold after moofs shrink. */
const DROPPED = new Set(["sidx"]);
const EMPTY = Buffer.alloc(0);

/**
 * Incremental decryptor: feed input chunks in order, get clear output pieces back.
 *
 * It buffers only a `moov`/`moof` (bounded by `maxBoxBytes`), the current input chunk,
 * and at most one sample that straddles chunk boundaries. The mdat keeps its size;
 * each moof shrinks by the encryption boxes removed. `sidx` boxes are dropped because
 * their referenced sizes change.
 */
export class DecryptEngine {
  private readonly keys: KeyTable;
  private readonly maxBoxBytes: number;
  private context: DecryptContext | undefined;
  private mode: Mode = { kind: "header" };
  private held: Buffer = Buffer.alloc(0);
  private inputPos = 0;
  private removed = 0;
  private boxStart = 0;
  private plan: { moofStart: number; samples: PlannedSample[] } | null = null;
  private samples: PlannedSample[] = [];
  private next = 0;
  private payloadPos = 0;
  private assembly: Assembly | null = null;
  private failure: Failure | null = null;

  constructor(options: DecryptOptions) {
    this.keys = options.keys;
    this.context = options.context;
    this.maxBoxBytes = options.maxBoxBytes ?? 16 * 1024 * 1024;
  }

  /** Consumes `chunk`; returns the output it completes (possibly none), or the first error. */
  write(chunk: Buffer): Result<Buffer[]> {
    if (this.failure) return this.failure;
    const out: Buffer[] = [];
    let at = 0;
    while (at < chunk.length) {
      const step = this.step(chunk, at, out);
      if (typeof step !== "number") {
        this.failure = step;
        return step;
      }
      this.inputPos += step - at;
      at = step;
    }
    return ok(out);
  }

  /** Signals the end of input; fails when it stops inside a box or before all samples were seen. */
  end(): Result<Buffer[]> {
    if (this.failure) return this.failure;
    const m = this.mode;
    if (
      m.kind === "mdat" &&
      m.remaining === Number.POSITIVE_INFINITY &&
      this.next >= this.samples.length &&
      !this.assembly
    )
      return ok([]);
    if (m.kind !== "header" || this.held.length > 0)
      return this.stop(fail(m.kind === "buffer" ? m.type : "mdat", "input ends inside a box"));
    if (this.plan) return this.stop(fail("moof", "moof without a following mdat"));
    return ok([]);
  }

  private stop(f: Failure): Failure {
    this.failure = f;
    return f;
  }

  /** Processes from `at`; returns the new position or a failure. */
  private step(chunk: Buffer, at: number, out: Buffer[]): number | Failure {
    const m = this.mode;
    switch (m.kind) {
      case "header":
        return this.readHeader(chunk, at, out);
      case "buffer": {
        const take = Math.min(m.size - this.held.length, chunk.length - at);
        this.held = Buffer.concat([this.held, chunk.subarray(at, at + take)]);
        if (this.held.length === m.size) {
          const r = this.finishBox(m.type, out);
          if (r) return r;
        }
        return at + take;
      }
      case "pass":
      case "drop": {
        const take = Math.min(m.remaining, chunk.length - at);
        if (m.kind === "pass") out.push(chunk.subarray(at, at + take));
        m.remaining -= take;
        if (m.remaining === 0) this.mode = { kind: "header" };
        return at + take;
      }
      case "mdat": {
        const take = Math.min(m.remaining, chunk.length - at);
        const r = this.mdatBytes(chunk.subarray(at, at + take), out);
        if (r) return r;
        m.remaining -= take;
        if (m.remaining === 0) return this.closeMdat(at + take);
        return at + take;
      }
    }
  }

  private readHeader(chunk: Buffer, at: number, out: Buffer[]): number | Failure {
    // Gather at most the 32 bytes a header can need (uuid + largesize).
    const want = Math.min(32 - this.held.length, chunk.length - at);
    const probe = Buffer.concat([this.held, chunk.subarray(at, at + want)]);
    const peek = peekBoxHeader(probe, 0);
    if (peek.kind === "invalid") return this.stop(fail("file", peek.message));
    if (peek.kind === "need-more") {
      this.held = probe;
      return at + want;
    }
    const consumed = peek.headerSize - this.held.length;
    this.boxStart = this.inputPos - this.held.length;
    const header = probe.subarray(0, peek.headerSize);
    this.held = Buffer.alloc(0);
    const size = peek.size;
    if (peek.type === "moov" || peek.type === "moof" || DROPPED.has(peek.type)) {
      if (size === null || size > this.maxBoxBytes)
        return this.stop(
          fail(
            peek.type,
            `box size ${size ?? "to end of file"} exceeds the ${this.maxBoxBytes}-byte limit`,
          ),
        );
      if (DROPPED.has(peek.type)) {
        this.removed += size;
        this.mode = { kind: "drop", remaining: size - peek.headerSize };
        if (size === peek.headerSize) this.mode = { kind: "header" };
        return at + consumed;
      }
      this.held = Buffer.from(header);
      this.mode = { kind: "buffer", type: peek.type, size };
      return at + consumed;
    }
    out.push(Buffer.from(header));
    const remaining = size === null ? Number.POSITIVE_INFINITY : size - peek.headerSize;
    if (peek.type === "mdat") {
      const r = this.openMdat(peek.headerSize, remaining);
      if (r) return r;
      this.mode = { kind: "mdat", remaining };
      if (remaining === 0) return this.closeMdat(at + consumed);
      return at + consumed;
    }
    this.mode = remaining === 0 ? { kind: "header" } : { kind: "pass", remaining };
    return at + consumed;
  }

  private finishBox(type: string, out: Buffer[]): Failure | null {
    const box = this.held;
    this.held = Buffer.alloc(0);
    this.mode = { kind: "header" };
    if (type === "moov") {
      const r = decryptInit(box);
      if (!r.ok) return this.stop(r);
      this.context = r.value.context;
      this.removed += box.length - r.value.init.length;
      out.push(r.value.init);
      return null;
    }
    if (!this.context)
      return this.stop(fail("moof", "moof before any init segment: no decryption context"));
    if (this.plan) return this.stop(fail("moof", "moof follows a moof without an mdat"));
    const header: BoxHeader = {
      type: "moof",
      start: 0,
      headerSize: box.readUInt32BE(0) === 1 ? 16 : 8,
      end: box.length,
    };
    const r = planFragment(box, header, this.context, this.keys, this.boxStart, this.removed);
    if (!r.ok) return this.stop(r);
    this.removed += r.value.shrink;
    this.plan = { moofStart: this.boxStart, samples: r.value.samples };
    out.push(r.value.moof);
    return null;
  }

  private openMdat(headerSize: number, payloadSize: number): Failure | null {
    this.samples = [];
    this.next = 0;
    this.payloadPos = 0;
    if (!this.plan) return null;
    // Sample offsets are relative to the moof; re-base them onto this mdat's payload.
    const payloadRel = this.boxStart + headerSize - this.plan.moofStart;
    for (const s of this.plan.samples) {
      const o = s.offset - payloadRel;
      if (o < 0 || o + s.size > payloadSize)
        return this.stop(
          fail("trun", `sample data at ${s.offset}+${s.size} lies outside the mdat`),
        );
      this.samples.push({ offset: o, size: s.size, cipher: s.cipher });
    }
    this.plan = null;
    return null;
  }

  private closeMdat(pos: number): number | Failure {
    this.mode = { kind: "header" };
    // Empty samples at the very end of the payload have no bytes to arrive; still check their maps.
    for (
      let s = this.samples[this.next];
      s && s.size === 0 && !this.assembly;
      s = this.samples[++this.next]
    ) {
      const r = decryptSampleInPlace(EMPTY, 0, 0, s.cipher);
      if (!r.ok) return this.stop(r);
    }
    if (this.assembly || this.next < this.samples.length)
      return this.stop(fail("mdat", "mdat ended before all samples"));
    return pos;
  }

  /** Decrypts the samples in this slice of mdat payload; output preserves byte order. */
  private mdatBytes(input: Buffer, out: Buffer[]): Failure | null {
    const start = this.payloadPos;
    const len = input.length;
    this.payloadPos += len;
    if (this.next >= this.samples.length && !this.assembly) {
      out.push(input);
      return null;
    }
    const work = Buffer.from(input);
    let emitFrom = 0;
    const asm = this.assembly;
    if (asm) {
      const take = Math.min(asm.sample.size - asm.filled, len);
      work.copy(asm.buf, asm.filled, 0, take);
      asm.filled += take;
      emitFrom = take;
      if (asm.filled < asm.sample.size) return null;
      const r = decryptSampleInPlace(asm.buf, 0, asm.sample.size, asm.sample.cipher);
      if (!r.ok) return this.stop(r);
      out.push(asm.buf);
      this.assembly = null;
      this.next++;
    }
    while (this.next < this.samples.length) {
      const s = this.samples[this.next] as PlannedSample;
      const rel = s.offset - start;
      if (rel >= len) break;
      if (rel + s.size <= len) {
        const r = decryptSampleInPlace(work, rel, s.size, s.cipher);
        if (!r.ok) return this.stop(r);
        this.next++;
        continue;
      }
      if (rel > emitFrom) out.push(work.subarray(emitFrom, rel));
      const buf = Buffer.allocUnsafe(s.size);
      work.copy(buf, 0, rel, len);
      this.assembly = { buf, filled: len - rel, sample: s };
      return null;
    }
    if (emitFrom < len) out.push(emitFrom === 0 ? work : work.subarray(emitFrom));
    return null;
  }
}
