import { sql } from "drizzle-orm";
import type { PgStateDb, PgTx } from "../../db/pg-client.js";
import type { MirroredResource } from "../kernel/change-feed.js";
import { STATE_CHANNEL } from "./change-listener.js";

/**
 * Counts one change of `resource`, inside the write's own transaction, so the
 * other instances' change feed sees the new version exactly when the data is
 * committed (never before, never without it), and tells them at once: `NOTIFY`
 * is transactional in PostgreSQL, delivered to the listeners only when the
 * transaction commits (and never when it rolls back). One statement, one round
 * trip.
 */
export async function bumpVersion(tx: PgTx | PgStateDb, resource: MirroredResource): Promise<void> {
  await tx.execute(sql`
    WITH bumped AS (
      INSERT INTO state_versions (resource, version) VALUES (${resource}, 1)
      ON CONFLICT (resource) DO UPDATE SET version = state_versions.version + 1
      RETURNING resource
    )
    SELECT pg_notify(${STATE_CHANNEL}, resource) FROM bumped`);
}
