import { and, eq } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";
import { egressConfig } from "../../db/schema-pg/index.js";
import { bumpVersion } from "../postgres/versions.js";
import { type EgressRepository, staleEgress } from "./repository.js";

/**
 * The egress document row in PostgreSQL (cluster mode). Every write transaction bumps the
 * `egress` version, so the other instances reload their copy and routes.
 */
export function postgresEgressRepository(db: PgStateDb): EgressRepository {
  const load = async () => (await db.select().from(egressConfig).where(eq(egressConfig.id, 1)))[0];
  return {
    load,
    async loadOrCreate(initial) {
      await db.transaction(async (tx) => {
        const created = await tx
          .insert(egressConfig)
          .values(initial)
          .onConflictDoNothing()
          .returning({ id: egressConfig.id });
        if (created.length > 0) await bumpVersion(tx, "egress");
      });
      return (await load())!;
    },
    async save(next) {
      await db.transaction(async (tx) => {
        const saved = await tx
          .update(egressConfig)
          .set(next)
          .where(and(eq(egressConfig.id, 1), eq(egressConfig.revision, next.revision - 1)))
          .returning({ id: egressConfig.id });
        if (saved.length !== 1) throw staleEgress();
        await bumpVersion(tx, "egress");
      });
    },
  };
}
