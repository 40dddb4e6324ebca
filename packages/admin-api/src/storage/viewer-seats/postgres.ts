import type { ViewerSeat, ViewerSeatStore } from "@svc/playback/play";
import { sql } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";

/**
 * First key of the two-key advisory locks that serialize seat claims per
 * channel (the second is the channel id's hash). A hash collision only makes
 * two channels' first requests wait for each other, never miscounts.
 */
const SEAT_LOCK_SPACE = 0x5ea7;

/** Rows per renewal statement: a few thousand viewers flush in one or two round trips. */
const RENEW_CHUNK = 5_000;

/**
 * The `viewer_seats` table (schema-pg) as the playback package's
 * {@link ViewerSeatStore}: what makes `max_viewers` exact across the instances
 * of a cluster. `instance` names this instance in the rows it writes (its
 * packaging-lease id in the full build, so the two tables agree).
 *
 * @example
 * const seats = createPgViewerSeatStore(storage.pg, "http://10.0.0.5:8080");
 * await seats.claim({ channelId: "news", leaseId, expiresAt: now + 30_000 }, 100, now);
 */
export function createPgViewerSeatStore(
  db: PgStateDb,
  instance: string | (() => string),
): ViewerSeatStore {
  const name = typeof instance === "string" ? () => instance : instance;
  return {
    claim: (seat, max, now) =>
      db.transaction(async (tx) => {
        // Count-and-insert is exact only when claims of one channel run one at a
        // time: READ COMMITTED gives the next statement a snapshot with the
        // previous holder's committed seat.
        await tx.execute(
          sql`select pg_advisory_xact_lock(${SEAT_LOCK_SPACE}::int4, hashtext(${seat.channelId}::text))`,
        );
        const taken = await tx.execute(sql`
          with live as (
            select count(*) filter (where lease_id <> ${seat.leaseId}::text) as others,
                   coalesce(bool_or(lease_id = ${seat.leaseId}::text), false) as mine
              from viewer_seats
             where channel_id = ${seat.channelId}::text and expires_at > ${now}::int8)
          insert into viewer_seats (channel_id, lease_id, expires_at, instance)
          select ${seat.channelId}::text, ${seat.leaseId}::text, ${seat.expiresAt}::int8, ${name()}::text
            from live
           where live.mine or live.others < ${max}::int8
          on conflict (channel_id, lease_id) do update
            set expires_at = greatest(viewer_seats.expires_at, excluded.expires_at),
                instance = excluded.instance
          returning 1`);
        return taken.rows.length === 1;
      }),

    async renew(seats, now) {
      const lost: ViewerSeat[] = [];
      for (let i = 0; i < seats.length; i += RENEW_CHUNK) {
        const chunk = seats.slice(i, i + RENEW_CHUNK);
        // Only seats still live are extended: a seat that lapsed may have been
        // counted free and given to another viewer meanwhile.
        const kept = await db.execute<{ channel_id: string; lease_id: string }>(sql`
          update viewer_seats s
             set expires_at = greatest(s.expires_at, v.expires_at), instance = ${name()}::text
            from unnest(${sql.param(chunk.map((s) => s.channelId))}::text[],
                        ${sql.param(chunk.map((s) => s.leaseId))}::text[],
                        ${sql.param(chunk.map((s) => s.expiresAt))}::int8[])
                 as v(channel_id, lease_id, expires_at)
           where s.channel_id = v.channel_id and s.lease_id = v.lease_id
             and s.expires_at > ${now}::int8
          returning s.channel_id, s.lease_id`);
        const renewed = new Set(kept.rows.map((r) => `${r.channel_id}\0${r.lease_id}`));
        for (const seat of chunk)
          if (!renewed.has(`${seat.channelId}\0${seat.leaseId}`)) lost.push(seat);
      }
      return lost;
    },

    async release(seat) {
      await db.execute(
        sql`delete from viewer_seats where channel_id = ${seat.channelId}::text and lease_id = ${seat.leaseId}::text`,
      );
    },

    async sweep(now) {
      const gone = await db.execute(sql`delete from viewer_seats where expires_at <= ${now}::int8`);
      return gone.rowCount ?? 0;
    },
  };
}
