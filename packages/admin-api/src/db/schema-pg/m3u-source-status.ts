import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `m3uSourceStatus` in PostgreSQL's types; what it holds: `../schema/m3u-source-status.ts`. */
export const m3uSourceStatus = pgTable("m3u_source_status", {
  sourceId: text("source_id").primaryKey(),
  lastAttempt: epoch("last_attempt"),
  lastSuccess: epoch("last_success"),
  error: text("error"),
  created: integer("created").notNull().default(0),
  updated: integer("updated").notNull().default(0),
  disabled: integer("disabled").notNull().default(0),
  skipped: integer("skipped").notNull().default(0),
  etag: text("etag"),
  lastModified: text("last_modified"),
});
