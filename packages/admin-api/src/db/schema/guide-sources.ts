import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Guide sources (spec "Guide source"). A custom source stores every field. A
 * built-in preset has a row only once the operator changed it: its null columns
 * mean "the preset's value", so a preset stays overridable by changed fields
 * only, and `hidden` records a preset's deletion (presets are hidden, not removed).
 */
export const guideSources = sqliteTable("guide_sources", {
  id: text("id").primaryKey(),
  preset: integer("preset", { mode: "boolean" }).notNull().default(false),
  name: text("name"),
  url: text("url"),
  timezone: text("timezone"),
  /** `auto`, `direct` or an egress route id (spec "Guide source"). */
  proxy: text("proxy"),
  enabled: integer("enabled", { mode: "boolean" }),
  hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
  /** Listing order: creation order, presets after custom sources. */
  position: integer("position").notNull(),
  revision: integer("revision").notNull().default(1),
  /** Epoch milliseconds. */
  updatedAt: integer("updated_at").notNull(),
});
