import type { Database } from "better-sqlite3";
import { connectionLock } from "../dialect/dialect.js";
import type { ChannelLease, ChannelLeaseRepository, LeaseView } from "./repository.js";

/**
 * The leases of the embedded single-instance build: nobody else packages, so every
 * acquisition succeeds (the generation still counts up, as in a cluster). Held in
 * memory: a restart starts every channel afresh anyway.
 */
export function singleInstanceLeases(): ChannelLeaseRepository {
  const leases = new Map<string, ChannelLease>();
  const live = (l: ChannelLease | undefined, now: number) =>
    l !== undefined && l.expiresAt > now ? { lease: l, ttlLeftMs: l.expiresAt - now } : undefined;
  return {
    async acquire(channelId, holder, ttlMs) {
      const now = Date.now();
      const lease: ChannelLease = {
        channelId,
        ownerId: holder.id,
        ownerUrl: holder.url,
        generation: (leases.get(channelId)?.generation ?? 0) + 1,
        expiresAt: now + ttlMs,
        renewedAt: now,
      };
      leases.set(channelId, lease);
      return { kind: "acquired", lease, ttlLeftMs: ttlMs };
    },
    async renew(holder, asked, ttlMs) {
      const now = Date.now();
      const kept: string[] = [];
      for (const { channelId, generation } of asked) {
        const l = leases.get(channelId);
        if (l?.ownerId !== holder.id || l.generation !== generation) continue;
        leases.set(channelId, { ...l, expiresAt: now + ttlMs, renewedAt: now });
        kept.push(channelId);
      }
      return kept;
    },
    async release(holder, channelId, generation) {
      const l = leases.get(channelId);
      if (l?.ownerId === holder.id && l.generation === generation)
        leases.set(channelId, { ...l, expiresAt: 0 });
    },
    async current(channelId) {
      return live(leases.get(channelId), Date.now());
    },
    async live() {
      const now = Date.now();
      return [...leases.values()]
        .map((l) => live(l, now))
        .filter((v) => v !== undefined)
        .sort((a, b) => a.lease.channelId.localeCompare(b.lease.channelId));
    },
  };
}

const COLUMNS = "channel_id, owner_id, owner_url, generation, expires_at, renewed_at";

interface AcquireParams {
  channel: string;
  owner: string;
  url: string;
  now: number;
  ttl: number;
}

interface SqliteLeaseRow {
  channel_id: string;
  owner_id: string;
  owner_url: string;
  generation: number;
  expires_at: number;
  renewed_at: number;
}

/**
 * The leases of the worker processes of one host (`server.workers` > 1) in the SQLite
 * file's `channel_leases`: PostgreSQL's statements (`postgres.ts`) in SQLite's words.
 * better-sqlite3 runs each statement to its end before anything else, and SQLite lets one
 * writer at a time in, so an acquisition's compare-and-set is exact across processes. Times
 * are the host's clock, which every worker shares. Each operation is one short statement
 * (renewal: one transaction), so the write lock is held for microseconds.
 */
export function sqliteChannelLeases(client: Database): ChannelLeaseRepository {
  const acquire = client.prepare<[AcquireParams], SqliteLeaseRow>(`
    INSERT INTO channel_leases AS l (${COLUMNS})
    VALUES (@channel, @owner, @url, 1, @now + @ttl, @now)
    ON CONFLICT (channel_id) DO UPDATE SET
      owner_id = excluded.owner_id,
      owner_url = excluded.owner_url,
      generation = l.generation + 1,
      expires_at = excluded.expires_at,
      renewed_at = excluded.renewed_at
    WHERE l.expires_at <= excluded.renewed_at OR l.owner_id = excluded.owner_id
    RETURNING ${COLUMNS}`);
  const current = client.prepare<[string], SqliteLeaseRow>(
    `SELECT ${COLUMNS} FROM channel_leases WHERE channel_id = ?`,
  );
  const live = client.prepare<[number], SqliteLeaseRow>(
    `SELECT ${COLUMNS} FROM channel_leases WHERE expires_at > ? ORDER BY channel_id`,
  );
  const renewOne = client.prepare<
    [{ now: number; ttl: number; owner: string; channel: string; generation: number }]
  >(`
    UPDATE channel_leases SET expires_at = @now + @ttl, renewed_at = @now
    WHERE owner_id = @owner AND channel_id = @channel AND generation = @generation`);
  const release = client.prepare<[string, string, number]>(
    "UPDATE channel_leases SET expires_at = 0 WHERE channel_id = ? AND owner_id = ? AND generation = ?",
  );
  const renewAll = client.transaction(
    (holder: string, asked: readonly { channelId: string; generation: number }[], ttl: number) => {
      const now = Date.now();
      const kept: string[] = [];
      for (const a of asked)
        if (
          renewOne.run({ now, ttl, owner: holder, channel: a.channelId, generation: a.generation })
            .changes === 1
        )
          kept.push(a.channelId);
      return kept;
    },
  );
  const view = (r: SqliteLeaseRow, now: number): LeaseView => ({
    lease: {
      channelId: r.channel_id,
      ownerId: r.owner_id,
      ownerUrl: r.owner_url,
      generation: r.generation,
      expiresAt: r.expires_at,
      renewedAt: r.renewed_at,
    },
    ttlLeftMs: r.expires_at - now,
  });
  // Writes under the workers' write lock (connectionLock): never waits on SQLite's with the
  // loop stopped. The clock is read once the lock is held.
  const exclusive = connectionLock(client);
  return {
    acquire: (channelId, holder, ttlMs) =>
      exclusive(async () => {
        const now = Date.now();
        const params = { channel: channelId, owner: holder.id, url: holder.url, now, ttl: ttlMs };
        const mine = acquire.get(params);
        if (mine !== undefined) return { kind: "acquired", ...view(mine, now) } as const;
        const cur = current.get(channelId);
        if (cur !== undefined && cur.expires_at > now)
          return { kind: "held", ...view(cur, now) } as const;
        // Released or expired between the two statements: one more try decides.
        const again = acquire.get({ ...params, now: Date.now() });
        if (again !== undefined) return { kind: "acquired", ...view(again, Date.now()) } as const;
        const held = current.get(channelId);
        if (held !== undefined) return { kind: "held", ...view(held, Date.now()) } as const;
        throw new Error(`channel lease of ${channelId}: no decision after two attempts`);
      }),
    async renew(holder, asked, ttlMs) {
      if (asked.length === 0) return [];
      return exclusive(async () => renewAll.immediate(holder.id, asked, ttlMs));
    },
    release: (holder, channelId, generation) =>
      exclusive(async () => {
        release.run(channelId, holder.id, generation);
      }),
    async current(channelId) {
      const now = Date.now();
      const row = current.get(channelId);
      return row !== undefined && row.expires_at > now ? view(row, now) : undefined;
    },
    async live() {
      const now = Date.now();
      return live.all(now).map((r) => view(r, now));
    },
  };
}
