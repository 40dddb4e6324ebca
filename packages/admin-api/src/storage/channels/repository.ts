import { GatewayError } from "@svc/core/errors";
import type { StoredChannel } from "./stored-channel.js";

/** Rows per multi-row write: 26 columns x 200 rows stays far below SQLite's variable limit. */
export const CHANNEL_WRITE_BATCH = 200;

/** A channel the writer saw at `revision`, to delete only while it still has that revision. */
export interface ChannelRemoval {
  readonly id: string;
  readonly revision: number;
}

export interface ChannelChange {
  /**
   * Whole channels to insert or replace. Each carries the revision it gets: the stored one
   * plus one, or 1 for a channel that does not exist yet.
   */
  readonly put?: readonly StoredChannel[];
  readonly remove?: readonly ChannelRemoval[];
}

/**
 * The channel catalog's storage. Writes are compare-and-set on the revision, so two
 * instances (or two requests) that read the same revision cannot both write over it:
 * the second gets {@link staleChannels} and nothing of its change is stored.
 */
export interface ChannelRepository {
  /** Every stored channel. */
  loadAll(): Promise<StoredChannel[]>;
  /** Stores the whole change in one transaction, or nothing of it (a stale revision: 409). */
  commit(change: ChannelChange): Promise<void>;
  /**
   * Operator contract "Config file": unless the one-time marker `marker` is set, inserts
   * `channels` when the catalog is empty and sets the marker, in one transaction. Instances
   * starting together on one database import once. Returns how many were inserted.
   */
  seedOnce(marker: string, channels: readonly StoredChannel[]): Promise<number>;
}

/** The conflict of a write whose channels another writer changed since they were read. */
export function staleChannels(): GatewayError {
  return new GatewayError(
    "conflict",
    "revision mismatch: a channel changed since it was read (another instance wrote it); reload and retry",
  );
}
