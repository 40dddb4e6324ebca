import { isoSeconds } from "@svc/core/auth";
import type { LeaseHolder, LeaseView } from "@svc/playback/cluster";

/** A runtime media session as `/v1/status` lists it (spec "Runtime session"). */
export interface RuntimeSessionView {
  readonly channel_id: string;
  readonly mode: string;
  readonly engine: string;
  readonly pack_mode: string | null;
  readonly fallback_reason: string | null;
  readonly started_at: string;
  readonly last_touch: string;
  readonly state: string;
  readonly errors: number;
  readonly last_error: string | null;
  /** Engine counters, passed through to JSON as the engine reports them. */
  readonly packager?: object | null;
}

/**
 * Where `/v1/status` learns the sessions of the whole cluster (operator contract
 * "Cluster mode"): this instance's name and the live packaging leases of all.
 */
export interface ClusterSessionSource {
  /** This instance as leases name their owner; undefined outside cluster mode. */
  self(): LeaseHolder | undefined;
  /** Every live packaging lease. */
  live(): Promise<readonly LeaseView[]>;
}

/** What cluster mode adds to every `/v1/status` session entry: who packages it, under which lease. */
export interface SessionOwnership {
  readonly owner: string;
  readonly owner_url: string;
  /** The packaging lease's acquisition count (null: no live lease names this instance). */
  readonly lease_generation: number | null;
  readonly lease_expires_at: string | null;
}

/** A `/v1/status` session entry in cluster mode. */
export type ClusterSessionEntry = (RuntimeSessionView & SessionOwnership) | RemoteSessionEntry;

/**
 * A session another instance runs. Its engine details live in that instance's
 * memory (its own `/v1/status` at `owner_url`); the lease tells who runs it,
 * under which lease generation, and when the owner last renewed.
 */
export interface RemoteSessionEntry extends SessionOwnership {
  readonly channel_id: string;
  readonly lease_generation: number;
  readonly lease_expires_at: string;
  readonly state: "remote";
  readonly mode: null;
  readonly engine: null;
  readonly pack_mode: null;
  readonly fallback_reason: null;
  readonly started_at: null;
  /** The owner's last lease renewal. */
  readonly last_touch: string;
  readonly errors: null;
  readonly last_error: null;
  readonly generation: null;
  readonly packager: null;
}

/**
 * The cluster's sessions: this instance's own (from memory, with their lease's
 * generation when this instance holds it) and one entry per channel whose live
 * lease another instance holds. A channel listed by both (an owner change
 * caught mid-way) is shown once, as the lease says.
 */
export function mergeClusterSessions(
  local: readonly RuntimeSessionView[],
  leases: readonly LeaseView[],
  self: { readonly id: string; readonly url: string },
  now = Date.now(),
): ClusterSessionEntry[] {
  // Times come back on this instance's clock: the lease's remaining time (and its
  // renewal's age) by the database's clock, added to ours.
  const byChannel = new Map(
    leases
      .filter((l) => l.ttlLeftMs > 0)
      .map((l) => {
        const dbNow = l.lease.expiresAt - l.ttlLeftMs;
        return [
          l.lease.channelId,
          {
            ...l.lease,
            expiresAt: now + l.ttlLeftMs,
            renewedAt: now - Math.max(0, dbNow - l.lease.renewedAt),
          },
        ] as const;
      }),
  );
  const out: ClusterSessionEntry[] = [];
  const listed = new Set<string>();
  for (const s of local) {
    const lease = byChannel.get(s.channel_id);
    if (lease !== undefined && lease.ownerId !== self.id) continue;
    listed.add(s.channel_id);
    out.push({
      ...s,
      owner: self.id,
      owner_url: self.url,
      lease_generation: lease?.generation ?? null,
      lease_expires_at: lease === undefined ? null : isoSeconds(new Date(lease.expiresAt)),
    });
  }
  for (const lease of byChannel.values()) {
    if (listed.has(lease.channelId) || lease.ownerId === self.id) continue;
    out.push({
      channel_id: lease.channelId,
      owner: lease.ownerId,
      owner_url: lease.ownerUrl,
      lease_generation: lease.generation,
      lease_expires_at: isoSeconds(new Date(lease.expiresAt)),
      state: "remote",
      mode: null,
      engine: null,
      pack_mode: null,
      fallback_reason: null,
      started_at: null,
      last_touch: isoSeconds(new Date(lease.renewedAt)),
      errors: null,
      last_error: null,
      generation: null,
      packager: null,
    });
  }
  return out.sort((a, b) =>
    a.channel_id < b.channel_id ? -1 : a.channel_id > b.channel_id ? 1 : 0,
  );
}
