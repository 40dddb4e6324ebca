import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Runtime-editable settings (spec "Settings"): a single row with id 1. */
export const settings = sqliteTable("settings", {
  id: integer("id").primaryKey(),
  publicBaseUrl: text("public_base_url").notNull(),
  accessLogRetentionDays: integer("access_log_retention_days").notNull(),
  tlsEnabled: integer("tls_enabled", { mode: "boolean" }).notNull(),
  revision: integer("revision").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
