import { and, eq } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { settings } from "../../db/schema/index.js";
import { type SettingsRepository, staleSettings } from "./repository.js";

/** The settings row in the embedded SQLite file. */
export function sqliteSettingsRepository(db: StateDb): SettingsRepository {
  const load = async () => db.select().from(settings).where(eq(settings.id, 1)).get();
  return {
    load,
    async loadOrCreate(initial) {
      db.insert(settings).values(initial).onConflictDoNothing().run();
      return (await load())!;
    },
    async save(next) {
      const { changes } = db
        .update(settings)
        .set(next)
        .where(and(eq(settings.id, 1), eq(settings.revision, next.revision - 1)))
        .run();
      if (changes !== 1) throw staleSettings();
    },
  };
}
