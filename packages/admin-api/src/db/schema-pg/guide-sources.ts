import { boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `guideSources` in PostgreSQL's types; what it holds: `../schema/guide-sources.ts`. */
export const guideSources = pgTable("guide_sources", {
  id: text("id").primaryKey(),
  preset: boolean("preset").notNull().default(false),
  name: text("name"),
  url: text("url"),
  timezone: text("timezone"),
  proxy: text("proxy"),
  enabled: boolean("enabled"),
  hidden: boolean("hidden").notNull().default(false),
  position: integer("position").notNull(),
  revision: integer("revision").notNull().default(1),
  updatedAt: epoch("updated_at").notNull(),
});
