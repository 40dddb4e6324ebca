import type { Pool } from "pg";
import type { ChannelLease, ChannelLeaseRepository, LeaseView } from "./repository.js";

/** Epoch ms by the database's clock: instances compare expiries on one clock, never their own. */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

const COLUMNS = "channel_id, owner_id, owner_url, generation, expires_at, renewed_at";

/**
 * Take the lease in one statement: insert it, or take it over when it expired (or is the
 * caller's own), bumping the generation. PostgreSQL locks the conflicting row and checks
 * the `WHERE` against its latest version, so of two instances racing for a free lease
 * exactly one gets a row back.
 */
const ACQUIRE = `
  WITH now AS (SELECT ${NOW_MS} AS ms)
  INSERT INTO channel_leases AS l (${COLUMNS})
  SELECT $1, $2, $3, 1, now.ms + $4, now.ms FROM now
  ON CONFLICT (channel_id) DO UPDATE SET
    owner_id = excluded.owner_id,
    owner_url = excluded.owner_url,
    generation = l.generation + 1,
    expires_at = excluded.expires_at,
    renewed_at = excluded.renewed_at
  WHERE l.expires_at <= excluded.renewed_at OR l.owner_id = excluded.owner_id
  RETURNING ${COLUMNS}, $4::bigint AS ttl_left`;

const CURRENT = `
  SELECT ${COLUMNS}, expires_at - ${NOW_MS} AS ttl_left FROM channel_leases
  WHERE channel_id = $1`;

const LIVE = `
  SELECT ${COLUMNS}, expires_at - ${NOW_MS} AS ttl_left FROM channel_leases
  WHERE expires_at > ${NOW_MS} ORDER BY channel_id`;

/** Only the caller's own leases of the generations it holds: a takeover is never undone. */
const RENEW = `
  WITH now AS (SELECT ${NOW_MS} AS ms)
  UPDATE channel_leases AS l SET expires_at = now.ms + $4, renewed_at = now.ms
  FROM now, unnest($2::text[], $3::bigint[]) AS held(channel_id, generation)
  WHERE l.owner_id = $1 AND l.channel_id = held.channel_id AND l.generation = held.generation
  RETURNING l.channel_id`;

/** Expired at once (the row stays, so the next acquisition's generation keeps counting). */
const RELEASE = `
  UPDATE channel_leases SET expires_at = 0
  WHERE channel_id = $1 AND owner_id = $2 AND generation = $3`;

interface LeaseRow {
  channel_id: string;
  owner_id: string;
  owner_url: string;
  /** node-postgres reads bigint as a string. */
  generation: string;
  expires_at: string;
  renewed_at: string;
  ttl_left: string;
}

const view = (r: LeaseRow): LeaseView => {
  const lease: ChannelLease = {
    channelId: r.channel_id,
    ownerId: r.owner_id,
    ownerUrl: r.owner_url,
    generation: Number(r.generation),
    expiresAt: Number(r.expires_at),
    renewedAt: Number(r.renewed_at),
  };
  return { lease, ttlLeftMs: Number(r.ttl_left) };
};

/**
 * The leases of a cluster in PostgreSQL's `channel_leases`. Plain SQL on the pool: each
 * operation is one statement whose compare-and-set is the point (drizzle's builder would
 * spell the same statements less plainly). Lease writes do not bump `state_versions`:
 * nothing mirrors them; each instance asks when it needs to know.
 *
 * @example
 * const leases = pgChannelLeases(storage.pg.$client);
 * await leases.acquire("news", { id: instanceId, url: "http://10.0.0.5:8080" }, 10_000);
 */
export function pgChannelLeases(pool: Pick<Pool, "query">): ChannelLeaseRepository {
  return {
    async acquire(channelId, holder, ttlMs) {
      // A lease that expired or was released between the two statements is free: try again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const won = await pool.query<LeaseRow>(ACQUIRE, [channelId, holder.id, holder.url, ttlMs]);
        const mine = won.rows[0];
        if (mine !== undefined) return { kind: "acquired", ...view(mine) };
        const cur = (await pool.query<LeaseRow>(CURRENT, [channelId])).rows[0];
        if (cur !== undefined && Number(cur.ttl_left) > 0) return { kind: "held", ...view(cur) };
      }
      throw new Error(`channel lease of ${channelId}: no decision after three attempts`);
    },
    async renew(holder, asked, ttlMs) {
      if (asked.length === 0) return [];
      const r = await pool.query<{ channel_id: string }>(RENEW, [
        holder.id,
        asked.map((a) => a.channelId),
        asked.map((a) => a.generation),
        ttlMs,
      ]);
      return r.rows.map((row) => row.channel_id);
    },
    async release(holder, channelId, generation) {
      await pool.query(RELEASE, [channelId, holder.id, generation]);
    },
    async current(channelId) {
      const row = (await pool.query<LeaseRow>(CURRENT, [channelId])).rows[0];
      return row !== undefined && Number(row.ttl_left) > 0 ? view(row) : undefined;
    },
    async live() {
      return (await pool.query<LeaseRow>(LIVE)).rows.map(view);
    },
  };
}
