import { boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `settings` in PostgreSQL's types; what it holds: `../schema/settings.ts`. */
export const settings = pgTable("settings", {
  id: integer("id").primaryKey(),
  publicBaseUrl: text("public_base_url").notNull(),
  accessLogRetentionDays: integer("access_log_retention_days").notNull(),
  tlsEnabled: boolean("tls_enabled").notNull(),
  revision: integer("revision").notNull(),
  updatedAt: epoch("updated_at").notNull(),
});
