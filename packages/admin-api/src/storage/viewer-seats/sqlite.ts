import type { ViewerSeat, ViewerSeatStore } from "@svc/playback/play";
import type { Database } from "better-sqlite3";
import { connectionLock } from "../dialect/dialect.js";

/**
 * The `viewer_seats` table of the SQLite file as the playback package's
 * {@link ViewerSeatStore}, for the workers of one host (`server.workers` > 1): what makes
 * `max_viewers` exact across them. A claim is one `BEGIN IMMEDIATE` transaction (count the
 * live seats, then insert), run to its end synchronously: SQLite's one writer at a time
 * orders the claims of every worker, as PostgreSQL's advisory lock does in a cluster.
 */
export function createSqliteViewerSeatStore(
  client: Database,
  instance: () => string,
): ViewerSeatStore {
  const others = client.prepare<[string, number, string], { n: number }>(
    "SELECT count(*) AS n FROM viewer_seats WHERE channel_id = ? AND expires_at > ? AND lease_id <> ?",
  );
  const mine = client.prepare<[string, string, number], { one: number }>(
    "SELECT 1 AS one FROM viewer_seats WHERE channel_id = ? AND lease_id = ? AND expires_at > ?",
  );
  const upsert = client.prepare<[string, string, number, string]>(`
    INSERT INTO viewer_seats (channel_id, lease_id, expires_at, instance) VALUES (?, ?, ?, ?)
    ON CONFLICT (channel_id, lease_id) DO UPDATE SET
      expires_at = max(viewer_seats.expires_at, excluded.expires_at),
      instance = excluded.instance`);
  const renewOne = client.prepare<[number, string, string, string, number]>(`
    UPDATE viewer_seats SET expires_at = max(expires_at, ?), instance = ?
    WHERE channel_id = ? AND lease_id = ? AND expires_at > ?`);
  const remove = client.prepare<[string, string]>(
    "DELETE FROM viewer_seats WHERE channel_id = ? AND lease_id = ?",
  );
  const sweep = client.prepare<[number]>("DELETE FROM viewer_seats WHERE expires_at <= ?");
  const live = client.prepare<[string, number], { n: number }>(
    "SELECT count(*) AS n FROM viewer_seats WHERE channel_id = ? AND expires_at > ?",
  );
  const claim = client.transaction((seat: ViewerSeat, max: number, now: number): boolean => {
    const held = mine.get(seat.channelId, seat.leaseId, now) !== undefined;
    if (!held && (others.get(seat.channelId, now, seat.leaseId)?.n ?? 0) >= max) return false;
    upsert.run(seat.channelId, seat.leaseId, seat.expiresAt, instance());
    return true;
  });
  const renew = client.transaction((seats: readonly ViewerSeat[], now: number): ViewerSeat[] => {
    const lost: ViewerSeat[] = [];
    const name = instance();
    for (const s of seats)
      if (renewOne.run(s.expiresAt, name, s.channelId, s.leaseId, now).changes === 0) lost.push(s);
    return lost;
  });
  // Under the workers' write lock (connectionLock): never waits on SQLite's with the loop stopped.
  const exclusive = connectionLock(client);
  return {
    claim: (seat, max, now) => exclusive(async () => claim.immediate(seat, max, now)),
    renew: async (seats, now) =>
      seats.length === 0 ? [] : exclusive(async () => renew.immediate(seats, now)),
    release: (seat) =>
      exclusive(async () => {
        remove.run(seat.channelId, seat.leaseId);
      }),
    sweep: (now) => exclusive(async () => sweep.run(now).changes),
    // A read (WAL): no lock, answered at once, so `active_cons` counts every worker's seats.
    liveNow: (channelId, now) => live.get(channelId, now)?.n ?? 0,
  };
}
