import { and, eq } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { egressConfig } from "../../db/schema/index.js";
import { type EgressRepository, staleEgress } from "./repository.js";

/** The egress document row in the embedded SQLite file. */
export function sqliteEgressRepository(db: StateDb): EgressRepository {
  const load = async () => db.select().from(egressConfig).where(eq(egressConfig.id, 1)).get();
  return {
    load,
    async loadOrCreate(initial) {
      db.insert(egressConfig).values(initial).onConflictDoNothing().run();
      return (await load())!;
    },
    async save(next) {
      const { changes } = db
        .update(egressConfig)
        .set(next)
        .where(and(eq(egressConfig.id, 1), eq(egressConfig.revision, next.revision - 1)))
        .run();
      if (changes !== 1) throw staleEgress();
    },
  };
}
