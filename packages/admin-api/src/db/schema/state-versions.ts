import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Workers (`server.workers` > 1): one row per mirrored resource, bumped in every write
 * transaction of that resource, so the other worker processes on this file reload what
 * one of them changed (docs/cluster.md "Workers"). The twin of PostgreSQL's table.
 */
export const stateVersions = sqliteTable("state_versions", {
  resource: text("resource").primaryKey(),
  version: integer("version").notNull().default(0),
});
