import { bigint, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * `<programme>` elements, one row each, indexed by source, generation, guide
 * channel and start. Not unique: a source may give several programmes one
 * start (clumps, overlaps, repeats); epg.xml resolves them as `tv_sort` does
 * (docs/guide.md "Duplicates and overlaps"). `body` is the
 * element's content already rendered as XMLTV (children in DTD order, escaped):
 * `epg.xml` streams rows straight out without re-parsing anything.
 */
export const guideProgrammes = twinTable(
  "guide_programmes",
  {
    sourceId: text("source_id").notNull(),
    /** The start time of its refresh, epoch ms. */
    generation: bigint("generation").notNull(),
    xmltvId: text("xmltv_id").notNull(),
    /** UTC instants, epoch seconds. */
    start: bigint("start").notNull(),
    stop: bigint("stop"),
    body: text("body").notNull(),
  },
  (t, k) => [k.index("guide_programmes_by_start").on(t.sourceId, t.generation, t.xmltvId, t.start)],
);
