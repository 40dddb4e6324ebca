import { index, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `guideProgrammes` in PostgreSQL's types; what it holds: `../schema/guide-programmes.ts`. */
export const guideProgrammes = pgTable(
  "guide_programmes",
  {
    sourceId: text("source_id").notNull(),
    /** The start time of its refresh, epoch ms: beyond int4. */
    generation: epoch("generation").notNull(),
    xmltvId: text("xmltv_id").notNull(),
    /** UTC instants, epoch seconds. */
    start: epoch("start").notNull(),
    stop: epoch("stop"),
    body: text("body").notNull(),
  },
  (t) => [index("guide_programmes_by_start").on(t.sourceId, t.generation, t.xmltvId, t.start)],
);
