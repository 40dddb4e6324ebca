/**
 * A packaging lease (operator contract "Cluster mode": each DASH channel is packaged by
 * one instance at a time). `generation` counts the acquisitions of the channel: every
 * new owner (or the same one starting over) gets the next number, so publication
 * generations built from it never repeat across instances.
 */
export interface ChannelLease {
  readonly channelId: string;
  /** The owner instance (random per process start). */
  readonly ownerId: string;
  /** Where the other instances reach the owner (its `server.advertise_url`). */
  readonly ownerUrl: string;
  readonly generation: number;
  /** Epoch ms, by the database's clock. */
  readonly expiresAt: number;
  readonly renewedAt: number;
}

/** One running instance as leases name it. */
export interface LeaseHolder {
  readonly id: string;
  readonly url: string;
}

/**
 * A lease as one caller saw it, with the milliseconds it had left by the database's clock
 * at that moment: callers add that to their own clock, so instances never compare clocks.
 */
export interface LeaseView {
  readonly lease: ChannelLease;
  readonly ttlLeftMs: number;
}

/** `acquired`: the caller owns the channel now; `held`: another instance's live lease. */
export type AcquireOutcome =
  | ({ readonly kind: "acquired" } & LeaseView)
  | ({ readonly kind: "held" } & LeaseView);

/**
 * Where the leases live: PostgreSQL in cluster mode, the process itself for the embedded
 * single-instance build (which always owns). Every decision is one compare-and-set
 * statement, so two instances never both own a channel.
 */
export interface ChannelLeaseStore {
  /**
   * Takes the channel when nobody holds a live lease (or the caller itself holds it),
   * bumping `generation`; otherwise reports the live holder.
   */
  acquire(channelId: string, holder: LeaseHolder, ttlMs: number): Promise<AcquireOutcome>;
  /**
   * Extends the caller's leases of these generations; returns the channel ids still held
   * (a lease another instance took over, after it expired, is missing from the answer).
   */
  renew(
    holder: LeaseHolder,
    leases: readonly { readonly channelId: string; readonly generation: number }[],
    ttlMs: number,
  ): Promise<string[]>;
  /** Gives the lease up (only this generation of the caller's); others may take it at once. */
  release(holder: LeaseHolder, channelId: string, generation: number): Promise<void>;
  /** The live lease of a channel, if any. */
  current(channelId: string): Promise<LeaseView | undefined>;
  /** Every live lease (the autostart sweep, `/v1/status`). */
  live(): Promise<LeaseView[]>;
}
