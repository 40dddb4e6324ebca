import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { StoredEgressDocument } from "./egress-document.js";

/**
 * The egress configuration (spec "Egress configuration"): a single row with id 1 holding the
 * whole document as JSON, proxy credentials included (the file is owner-only, see client.ts).
 */
export const egressConfig = sqliteTable("egress_config", {
  id: integer("id").primaryKey(),
  document: text("document", { mode: "json" }).$type<StoredEgressDocument>().notNull(),
  /** `config` (seeded from the config file) or `api` (written through the admin API). */
  source: text("source").notNull(),
  revision: integer("revision").notNull(),
  /** Epoch milliseconds. */
  updatedAt: integer("updated_at").notNull(),
});
