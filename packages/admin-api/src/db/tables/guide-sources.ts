import { bigint, boolean, integer, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * Guide sources (spec "Guide source"). A custom source stores every field. A
 * built-in preset has a row only once the operator changed it: its null columns
 * mean "the preset's value", so a preset stays overridable by changed fields
 * only, and `hidden` records a preset's deletion (presets are hidden, not removed).
 */
export const guideSources = twinTable("guide_sources", {
  id: text("id").primaryKey(),
  preset: boolean("preset").notNull().default(false),
  name: text("name"),
  url: text("url"),
  timezone: text("timezone"),
  /** `auto`, `direct` or an egress route id (spec "Guide source"). */
  proxy: text("proxy"),
  enabled: boolean("enabled"),
  hidden: boolean("hidden").notNull().default(false),
  /** Listing order: creation order, presets after custom sources. */
  position: integer("position").notNull(),
  revision: integer("revision").notNull().default(1),
  /** Epoch milliseconds. */
  updatedAt: bigint("updated_at").notNull(),
});
