import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  generateDrizzleJson,
  generateMigration,
  generateSQLiteDrizzleJson,
  generateSQLiteMigration,
} from "drizzle-kit/api";
import * as sqliteTables from "../schema/index.js";
import * as pgTables from "../schema-pg/index.js";

/** The snapshot drizzle-kit wrote with the newest committed migration of `folder` (`drizzle`, `drizzle-pg`). */
function newestSnapshot(folder: string) {
  const meta = new URL(".", import.meta.resolve(`@svc/admin-api/${folder}/meta/_journal.json`));
  const journal = JSON.parse(readFileSync(new URL("_journal.json", meta), "utf8")) as {
    entries: { idx: number }[];
  };
  const newest = journal.entries.at(-1);
  assert.ok(newest !== undefined);
  const file = `${String(newest.idx).padStart(4, "0")}_snapshot.json`;
  return JSON.parse(readFileSync(new URL(file, meta), "utf8"));
}

// What `drizzle-kit generate` would write for each config (drizzle.config.ts,
// drizzle-pg.config.ts): nothing, while both schemas, derived from the one description in
// this folder, are what the committed migrations create.
describe("the tables as described and the committed migrations", () => {
  it("SQLite: drizzle-kit has nothing to generate", async () => {
    const current = await generateSQLiteDrizzleJson({ ...sqliteTables });
    assert.deepEqual(await generateSQLiteMigration(newestSnapshot("drizzle"), current), []);
  });

  it("PostgreSQL: drizzle-kit has nothing to generate", async () => {
    const current = generateDrizzleJson({ ...pgTables });
    assert.deepEqual(await generateMigration(newestSnapshot("drizzle-pg"), current), []);
  });
});
