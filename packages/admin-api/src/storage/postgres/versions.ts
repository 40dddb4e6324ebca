import { sql } from "drizzle-orm";
import type { PgStateDb, PgTx } from "../../db/pg-client.js";
import { stateVersions } from "../../db/schema-pg/index.js";
import type { MirroredResource } from "../change-feed.js";

/**
 * Counts one change of `resource`, inside the write's own transaction, so the
 * other instances' change feed sees the new version exactly when the data is
 * committed (never before, never without it).
 */
export async function bumpVersion(tx: PgTx | PgStateDb, resource: MirroredResource): Promise<void> {
  await tx
    .insert(stateVersions)
    .values({ resource, version: 1 })
    .onConflictDoUpdate({
      target: stateVersions.resource,
      set: { version: sql`${stateVersions.version} + 1` },
    });
}
