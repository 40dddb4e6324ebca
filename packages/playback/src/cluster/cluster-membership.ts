import { randomBytes } from "node:crypto";
import type { ChannelLeaseStore } from "./channel-lease-store.js";
import { type ChannelOwnership, createChannelOwnership } from "./channel-ownership.js";

/** A new id for this instance in the lease and viewer-seat tables (random per process start). */
export function newInstanceId(): string {
  return randomBytes(12).toString("base64url");
}

export interface ClusterMembershipOptions {
  readonly store: ChannelLeaseStore;
  /** This instance's id (default: a new one); the viewer seats are written under it too. */
  readonly instanceId?: string;
  /** Where the other instances reach this one (`server.advertise_url`); "" until it listens. */
  readonly selfUrl: () => string;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
  /** Lease TTL and renewal periods (tests shorten them). */
  readonly timings?: { readonly ttlMs?: number; readonly renewEveryMs?: number };
}

/**
 * This instance's place in a cluster: its id and its side of the packaging leases. Made
 * before the session manager, which packages only the channels whose lease it holds, and
 * before the packaging cluster, which is built over both.
 */
export interface ClusterMembership {
  readonly instanceId: string;
  readonly store: ChannelLeaseStore;
  readonly selfUrl: () => string;
  readonly ownership: ChannelOwnership;
}

/**
 * @example
 * const membership = joinCluster({ store, selfUrl: () => url });
 * const manager = createSessionManager({ config, catalog, egress, ownership: membership.ownership });
 * const cluster = createPackagingCluster({ membership, sessions: manager, catalog, signingKey, build: "full", withCors: false });
 */
export function joinCluster(o: ClusterMembershipOptions): ClusterMembership {
  const instanceId = o.instanceId ?? newInstanceId();
  const ownership = createChannelOwnership({
    store: o.store,
    self: () => ({ id: instanceId, url: o.selfUrl() }),
    ...(o.log === undefined ? {} : { log: o.log }),
    ...(o.timings?.ttlMs === undefined ? {} : { ttlMs: o.timings.ttlMs }),
    ...(o.timings?.renewEveryMs === undefined ? {} : { renewEveryMs: o.timings.renewEveryMs }),
  });
  return { instanceId, store: o.store, selfUrl: o.selfUrl, ownership };
}
