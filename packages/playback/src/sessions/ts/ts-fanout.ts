import { ContinuityRewriter } from "../../ts/continuity-rewriter.js";

/** Where one live viewer's bytes go: the HTTP response of a `stream.ts` request. */
export interface TsViewerSink {
  /** Queues `bytes`; answers the bytes queued and not yet taken by the client. */
  write(bytes: Buffer): number;
  /** Ends the viewer's response (a slow reader, the session stopping). */
  close(why: string): void;
}

export interface TsFanoutOptions {
  /** The current PAT, PMT and packets since the latest random-access point, if any. */
  readonly joinPoint: () => Buffer[] | undefined;
  /**
   * The current PAT and PMT once known: viewers of a stream that has sent nothing yet get
   * them at once, their first bytes while the source reaches its first random-access point.
   */
  readonly psi?: () => Buffer[] | undefined;
  /** A viewer queueing more than this is a slow reader and is dropped at once. */
  readonly maxQueuedBytes: number;
  /**
   * …and one that stays more than {@link BACKLOG_BYTES} behind for this long (a reader
   * slower than the stream, or one that stopped reading) is dropped too.
   */
  readonly maxBacklogMs: number;
}

/** Queued bytes a viewer may carry without counting as behind (socket-buffer jitter). */
export const BACKLOG_BYTES = 64 * 1024;

interface Viewer {
  readonly sink: TsViewerSink;
  /** False until the viewer got its join point; then it follows the shared stream. */
  joined: boolean;
  /** Since when (ms) the viewer has been more than BACKLOG_BYTES behind; 0 when it is not. */
  behindSince: number;
}

/**
 * The live packet stream of one `ts` channel's single upstream connection, handed to
 * every `stream.ts` viewer (extensions "MPEG-TS output"). A viewer starts with PAT and
 * PMT, then the packets since the latest random-access point, and follows live; after
 * a reconnect every viewer waits for the new source's first random-access point.
 *
 * Every viewer follows one stream whose continuity counters are rewritten once
 * ({@link ContinuityRewriter}), and each push is one buffer written to every viewer's
 * socket: a viewer costs a write, not a copy. A viewer joining mid-stream gets its join
 * point with counters aligned to that stream ({@link ContinuityRewriter.joinAligned}), so
 * it follows with no break. A viewer whose queue grows past `maxQueuedBytes` is closed on
 * its own: the others never wait for it.
 * @example
 * const fanout = new TsFanout({ joinPoint: () => cutter.joinPoint(), maxQueuedBytes: 4 << 20, maxBacklogMs: 8000 });
 * const leave = fanout.add(sink);
 * fanout.push(packets);
 */
export class TsFanout {
  private readonly viewers = new Set<Viewer>();
  /** The counters of the stream every viewer follows; new when the first viewer comes. */
  private stream = new ContinuityRewriter();
  /** The stream waits for a join point: before its first viewer's, after a reconnect. */
  private waiting = true;
  /** The stream has sent something (PSI or a join point) since it started. */
  private started = false;
  /** Viewers dropped as slow readers since the session started. */
  dropped = 0;

  constructor(private readonly o: TsFanoutOptions) {}

  get size(): number {
    return this.viewers.size;
  }

  /** Adds a viewer; it gets its first bytes at once when a join point exists. */
  add(sink: TsViewerSink): () => void {
    const v: Viewer = { sink, joined: false, behindSince: 0 };
    if (this.viewers.size === 0) {
      // Nobody followed the stream: it starts again from the next join point.
      this.stream = new ContinuityRewriter();
      this.waiting = true;
      this.started = false;
    }
    this.viewers.add(v);
    if (this.waiting) this.resume(Date.now());
    else this.joinLate(Date.now());
    return () => {
      this.viewers.delete(v);
    };
  }

  /** Packets the source just delivered, after the segment cutter has seen them. */
  push(packets: readonly Buffer[]): void {
    if (this.viewers.size === 0 || packets.length === 0) return;
    const now = Date.now();
    if (this.waiting) {
      // The join point holds these packets.
      this.resume(now);
      return;
    }
    const bytes = joined(this.stream.rewrite(packets));
    let late = false;
    for (const v of this.viewers) {
      if (v.joined) this.send(v, bytes, now);
      else late = true;
    }
    if (late) this.joinLate(now);
  }

  /** The source connection ended; the next packets come from a new one. */
  discontinuity(): void {
    this.stream.discontinuity();
    this.waiting = true;
  }

  /** Ends every viewer (the session stops). */
  closeAll(why: string): void {
    for (const v of [...this.viewers]) v.sink.close(why);
    this.viewers.clear();
  }

  /** The stream (re)starts at the join point, for every viewer alike. */
  private resume(now: number): void {
    const joinPoint = this.o.joinPoint();
    if (joinPoint === undefined) {
      this.announce(now);
      return;
    }
    this.waiting = false;
    this.started = true;
    const bytes = joined(this.stream.rewrite(joinPoint));
    for (const v of this.viewers) {
      v.joined = true;
      this.send(v, bytes, now);
    }
  }

  /** A stream that has sent nothing sends PAT and PMT as soon as they are known. */
  private announce(now: number): void {
    if (this.started || this.o.psi === undefined) return;
    const psi = this.o.psi();
    if (psi === undefined) return;
    this.started = true;
    const bytes = joined(this.stream.rewrite(psi));
    for (const v of this.viewers) this.send(v, bytes, now);
  }

  /** Viewers that came while the stream flows get the join point aligned to it. */
  private joinLate(now: number): void {
    const joinPoint = this.o.joinPoint();
    if (joinPoint === undefined) return;
    const bytes = joined(this.stream.joinAligned(joinPoint));
    for (const v of this.viewers) {
      if (v.joined) continue;
      v.joined = true;
      this.send(v, bytes, now);
    }
  }

  private send(v: Viewer, bytes: Buffer, now: number): void {
    if (bytes.length === 0) return;
    const queued = v.sink.write(bytes);
    if (queued <= BACKLOG_BYTES) v.behindSince = 0;
    else if (v.behindSince === 0) v.behindSince = now;
    if (queued > this.o.maxQueuedBytes)
      this.drop(v, `slow reader: more than ${this.o.maxQueuedBytes} bytes queued`);
    else if (v.behindSince !== 0 && now - v.behindSince > this.o.maxBacklogMs)
      this.drop(v, `slow reader: behind for more than ${this.o.maxBacklogMs / 1000} s`);
  }

  private drop(v: Viewer, why: string): void {
    this.viewers.delete(v);
    this.dropped += 1;
    v.sink.close(why);
  }
}

/** Packets as one buffer (no copy for one packet). */
function joined(packets: readonly Buffer[]): Buffer {
  return packets.length === 1 ? packets[0]! : Buffer.concat(packets);
}
