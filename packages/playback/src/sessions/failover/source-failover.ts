import type { ResolvedSource } from "./channel-sources.js";
import type { FailoverReason } from "./failover-reason.js";

export interface SourceFailoverOptions {
  readonly channelId: string;
  /** `media.failback_sec` in ms: how long a higher source must probe healthy. */
  readonly failbackMs: number;
  log(event: string, fields: Record<string, unknown>): void;
  /** One failover, for `svc_failovers_total{reason}`. */
  count(reason: FailoverReason): void;
}

/**
 * Which source of a channel with `fallback_sources` is active (extensions "Fallback sources
 * and the slate"). Owned by the channel's runtime session, so the choice and the count
 * outlive a packager generation. The engine reports failures ({@link fail}) and media
 * ({@link delivering}); failback probes report on the higher sources ({@link probed}).
 * `onSwitch` listeners (the engine's current connection) hear of a failback, which is the
 * one switch the engine does not cause itself.
 *
 * @example
 * const f = new SourceFailover(sources, { channelId, failbackMs: 120_000, log, count });
 * f.fail("http_error", "upstream answered 404"); // active 0 → 1, failovers 1
 */
export class SourceFailover {
  active = 0;
  failovers = 0;
  /** Epoch ms since when every source has failed in a row (the slate plays), else undefined. */
  allDownSince: number | undefined;
  private failedInRow = 0;
  private readonly healthySince = new Map<number, number>();
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly sources: readonly ResolvedSource[],
    private readonly o: SourceFailoverOptions,
  ) {}

  current(): ResolvedSource {
    // The constructor's caller always passes the primary; the list never shrinks.
    return this.sources[this.active] ?? (this.sources[0] as ResolvedSource);
  }

  /** The active source delivers media again: it is no longer "all down". */
  delivering(): void {
    if (this.allDownSince !== undefined)
      this.o.log("source recovered", { channel_id: this.o.channelId, active_source: this.active });
    this.failedInRow = 0;
    this.allDownSince = undefined;
  }

  /**
   * The active source failed: the next one in order becomes active (after the last, the
   * primary again). Returns true when every source has now failed in a row.
   */
  fail(reason: FailoverReason, why: string, now = Date.now()): boolean {
    const from = this.active;
    this.failedInRow += 1;
    this.active = (from + 1) % this.sources.length;
    this.failovers += 1;
    this.healthySince.clear();
    this.o.count(reason);
    this.o.log("source failover", {
      channel_id: this.o.channelId,
      from,
      to: this.active,
      reason,
      why,
    });
    const allDown = this.failedInRow >= this.sources.length;
    if (allDown && this.allDownSince === undefined) this.allDownSince = now;
    return allDown;
  }

  /** Sources above the active one: what failback probes (lowest index first). */
  higher(): readonly ResolvedSource[] {
    return this.sources.slice(0, this.active);
  }

  /**
   * A failback probe of source `index`: once it has been healthy for `failbackMs` without a
   * failed probe in between, it becomes active and the listeners are told. True then.
   */
  probed(index: number, ok: boolean, now = Date.now()): boolean {
    if (!ok || index >= this.active) {
      this.healthySince.delete(index);
      return false;
    }
    const since = this.healthySince.get(index) ?? now;
    this.healthySince.set(index, since);
    if (now - since < this.o.failbackMs) return false;
    const from = this.active;
    this.active = index;
    this.healthySince.clear();
    this.failedInRow = 0;
    this.o.log("source failback", {
      channel_id: this.o.channelId,
      from,
      to: index,
      healthy_sec: Math.round((now - since) / 1000),
    });
    for (const l of [...this.listeners]) l();
    return true;
  }

  /** Hears of a failback; returns the way to stop listening. */
  onSwitch(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
