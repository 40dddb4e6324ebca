import type { StoredEgressDocument } from "./egress-document.js";
import { bigint, integer, json, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * The egress configuration (spec "Egress configuration"): a single row with id 1 holding the
 * whole document as JSON, proxy credentials included (the file is owner-only, see client.ts).
 */
export const egressConfig = twinTable("egress_config", {
  id: integer("id").primaryKey(),
  document: json("document").$type<StoredEgressDocument>().notNull(),
  /** `config` (seeded from the config file) or `api` (written through the admin API). */
  source: text("source").notNull(),
  revision: integer("revision").notNull(),
  /** Epoch milliseconds. */
  updatedAt: bigint("updated_at").notNull(),
});
