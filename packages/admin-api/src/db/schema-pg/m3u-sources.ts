import { boolean, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `m3uSources` in PostgreSQL's types; what it holds: `../schema/m3u-sources.ts`. */
export const m3uSources = pgTable("m3u_sources", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  url: text("url").notNull(),
  enabled: boolean("enabled").notNull().default(true),
  refreshIntervalMin: integer("refresh_interval_min").notNull(),
  upstream: text("upstream").notNull().default(""),
  groupFilter: jsonb("group_filter").$type<string[]>().notNull(),
  removeMissing: boolean("remove_missing").notNull().default(false),
  position: integer("position").notNull(),
  revision: integer("revision").notNull().default(1),
  updatedAt: epoch("updated_at").notNull(),
});
