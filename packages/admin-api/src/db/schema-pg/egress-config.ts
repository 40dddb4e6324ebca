import { integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import type { StoredEgressDocument } from "../schema/egress-document.js";
import { epoch } from "./epoch.js";

/** `egressConfig` in PostgreSQL's types; what it holds: `../schema/egress-config.ts`. */
export const egressConfig = pgTable("egress_config", {
  id: integer("id").primaryKey(),
  document: jsonb("document").$type<StoredEgressDocument>().notNull(),
  source: text("source").notNull(),
  revision: integer("revision").notNull(),
  updatedAt: epoch("updated_at").notNull(),
});
