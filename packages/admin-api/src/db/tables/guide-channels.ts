import { boolean, json, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * `<channel>` elements of each source. Rows are kept when a channel leaves its
 * source (`present` false): matches to it stay, marked stale, instead of dropping.
 */
export const guideChannels = twinTable(
  "guide_channels",
  {
    sourceId: text("source_id").notNull(),
    xmltvId: text("xmltv_id").notNull(),
    /** JSON array of display names, in document order. */
    displayNames: json("display_names").$type<string[]>().notNull(),
    icon: text("icon").notNull().default(""),
    present: boolean("present").notNull().default(true),
  },
  (t, k) => [
    k.primaryKey(t.sourceId, t.xmltvId),
    k.index("guide_channels_xmltv_idx").on(t.xmltvId),
  ],
);
