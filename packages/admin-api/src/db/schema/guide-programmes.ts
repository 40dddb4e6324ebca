import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * `<programme>` elements, one row each, keyed by source, generation, guide
 * channel and start so one source never holds a programme twice. `body` is the
 * element's content already rendered as XMLTV (children in DTD order, escaped):
 * `epg.xml` streams rows straight out without re-parsing anything.
 */
export const guideProgrammes = sqliteTable(
  "guide_programmes",
  {
    sourceId: text("source_id").notNull(),
    generation: integer("generation").notNull(),
    xmltvId: text("xmltv_id").notNull(),
    /** UTC instants, epoch seconds. */
    start: integer("start").notNull(),
    stop: integer("stop"),
    body: text("body").notNull(),
  },
  (t) => [uniqueIndex("guide_programmes_key").on(t.sourceId, t.generation, t.xmltvId, t.start)],
);
