import { and, eq } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";
import { settings } from "../../db/schema-pg/index.js";
import { bumpVersion } from "../postgres/versions.js";
import { type SettingsRepository, staleSettings } from "./repository.js";

/**
 * The settings row in PostgreSQL (cluster mode). Every write transaction bumps the
 * `settings` version, so the other instances reload their copy.
 */
export function postgresSettingsRepository(db: PgStateDb): SettingsRepository {
  const load = async () => (await db.select().from(settings).where(eq(settings.id, 1)))[0];
  return {
    load,
    async loadOrCreate(initial) {
      await db.transaction(async (tx) => {
        const created = await tx
          .insert(settings)
          .values(initial)
          .onConflictDoNothing()
          .returning({ id: settings.id });
        if (created.length > 0) await bumpVersion(tx, "settings");
      });
      return (await load())!;
    },
    async save(next) {
      await db.transaction(async (tx) => {
        const saved = await tx
          .update(settings)
          .set(next)
          .where(and(eq(settings.id, 1), eq(settings.revision, next.revision - 1)))
          .returning({ id: settings.id });
        if (saved.length !== 1) throw staleSettings();
        await bumpVersion(tx, "settings");
      });
    },
  };
}
