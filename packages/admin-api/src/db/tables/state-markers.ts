import { bigint, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/** One-time facts about the state database, such as "channels imported from the config file". */
export const stateMarkers = twinTable("state_markers", {
  name: text("name").primaryKey(),
  setAt: bigint("set_at").notNull(),
});
