import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * `<channel>` elements of each source. Rows are kept when a channel leaves its
 * source (`present` false): matches to it stay, marked stale, instead of dropping.
 */
export const guideChannels = sqliteTable(
  "guide_channels",
  {
    sourceId: text("source_id").notNull(),
    xmltvId: text("xmltv_id").notNull(),
    /** JSON array of display names, in document order. */
    displayNames: text("display_names", { mode: "json" }).$type<string[]>().notNull(),
    icon: text("icon").notNull().default(""),
    present: integer("present", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.xmltvId] }),
    index("guide_channels_xmltv_idx").on(t.xmltvId),
  ],
);
