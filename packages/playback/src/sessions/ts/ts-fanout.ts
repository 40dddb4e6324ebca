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
  readonly continuity: ContinuityRewriter;
  joined: boolean;
  /** Since when (ms) the viewer has been more than BACKLOG_BYTES behind; 0 when it is not. */
  behindSince: number;
}

/**
 * The live packet stream of one `ts` channel's single upstream connection, handed to
 * every `stream.ts` viewer (extensions "MPEG-TS output"). A viewer starts with PAT and
 * PMT, then the packets since the latest random-access point, and follows live; after
 * a reconnect it waits for the new source's first random-access point. Each viewer has
 * its own continuity counters ({@link ContinuityRewriter}). A viewer whose queue grows
 * past `maxQueuedBytes` is closed on its own: the others never wait for it.
 * @example
 * const fanout = new TsFanout({ joinPoint: () => cutter.joinPoint(), maxQueuedBytes: 4 << 20, maxBacklogMs: 8000 });
 * const leave = fanout.add(sink);
 * fanout.push(packets);
 */
export class TsFanout {
  private readonly viewers = new Set<Viewer>();
  /** Viewers dropped as slow readers since the session started. */
  dropped = 0;

  constructor(private readonly o: TsFanoutOptions) {}

  get size(): number {
    return this.viewers.size;
  }

  /** Adds a viewer; it gets its first bytes at once when a join point exists. */
  add(sink: TsViewerSink): () => void {
    const v: Viewer = {
      sink,
      continuity: new ContinuityRewriter(),
      joined: false,
      behindSince: 0,
    };
    this.viewers.add(v);
    this.join(v, this.o.joinPoint());
    return () => {
      this.viewers.delete(v);
    };
  }

  /** Packets the source just delivered, after the segment cutter has seen them. */
  push(packets: readonly Buffer[]): void {
    if (this.viewers.size === 0 || packets.length === 0) return;
    let joinPoint: Buffer[] | undefined | null = null;
    for (const v of this.viewers) {
      if (v.joined) {
        this.send(v, packets);
        continue;
      }
      // A join point already holds these packets.
      if (joinPoint === null) joinPoint = this.o.joinPoint();
      this.join(v, joinPoint);
    }
  }

  /** The source connection ended; the next packets come from a new one. */
  discontinuity(): void {
    for (const v of this.viewers) {
      v.joined = false;
      v.continuity.discontinuity();
    }
  }

  /** Ends every viewer (the session stops). */
  closeAll(why: string): void {
    for (const v of [...this.viewers]) v.sink.close(why);
    this.viewers.clear();
  }

  private join(v: Viewer, joinPoint: Buffer[] | undefined): void {
    if (joinPoint === undefined) return;
    v.joined = true;
    this.send(v, joinPoint);
  }

  private send(v: Viewer, packets: readonly Buffer[]): void {
    const out = v.continuity.rewrite(packets);
    if (out.length === 0) return;
    const queued = v.sink.write(out.length === 1 ? out[0]! : Buffer.concat(out));
    const now = Date.now();
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
