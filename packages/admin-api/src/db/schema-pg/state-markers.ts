import { pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `stateMarkers` in PostgreSQL's types; what it holds: `../schema/state-markers.ts`. */
export const stateMarkers = pgTable("state_markers", {
  name: text("name").primaryKey(),
  setAt: epoch("set_at").notNull(),
});
