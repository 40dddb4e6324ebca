import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * `<programme>` elements, one row each, indexed by source, generation, guide
 * channel and start. Not unique: a source may give several programmes one
 * start (clumps, overlaps, repeats); epg.xml resolves them as `tv_sort` does
 * (docs/guide.md "Duplicates and overlaps"). `body` is the
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
  (t) => [index("guide_programmes_by_start").on(t.sourceId, t.generation, t.xmltvId, t.start)],
);
