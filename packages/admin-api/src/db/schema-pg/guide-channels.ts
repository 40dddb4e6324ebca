import { boolean, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** `guideChannels` in PostgreSQL's types; what it holds: `../schema/guide-channels.ts`. */
export const guideChannels = pgTable(
  "guide_channels",
  {
    sourceId: text("source_id").notNull(),
    xmltvId: text("xmltv_id").notNull(),
    displayNames: jsonb("display_names").$type<string[]>().notNull(),
    icon: text("icon").notNull().default(""),
    present: boolean("present").notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.xmltvId] }),
    index("guide_channels_xmltv_idx").on(t.xmltvId),
  ],
);
