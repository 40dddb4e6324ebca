import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One-time facts about the state database, such as "channels imported from the config file". */
export const stateMarkers = sqliteTable("state_markers", {
  name: text("name").primaryKey(),
  setAt: integer("set_at").notNull(),
});
