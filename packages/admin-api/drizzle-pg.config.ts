import { defineConfig } from "drizzle-kit";

// The PostgreSQL migrations (`server.database_url`, operator contract "Cluster mode"):
// `pnpm exec drizzle-kit generate --config drizzle-pg.config.ts` writes them into
// ./drizzle-pg from the pg-core side of ./src/db/tables, whose SQLite side
// drizzle.config.ts reads; they are committed and applied at start,
// under an advisory lock, by src/storage/postgres/migrate.ts.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg/index.ts",
  out: "./drizzle-pg",
});
