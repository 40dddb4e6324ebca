import { boolean, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `guideSourceStatus` in PostgreSQL's types; what it holds: `../schema/guide-source-status.ts`. */
export const guideSourceStatus = pgTable("guide_source_status", {
  sourceId: text("source_id").primaryKey(),
  lastAttempt: epoch("last_attempt"),
  lastSuccess: epoch("last_success"),
  stale: boolean("stale").notNull().default(false),
  error: text("error"),
  channelCount: integer("channel_count").notNull().default(0),
  programmeCount: integer("programme_count").notNull().default(0),
  generation: epoch("generation"),
  etag: text("etag"),
  lastModified: text("last_modified"),
  metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
});
