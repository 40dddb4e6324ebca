import { bigint, boolean, integer, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/** Runtime-editable settings (spec "Settings"): a single row with id 1. */
export const settings = twinTable("settings", {
  id: integer("id").primaryKey(),
  publicBaseUrl: text("public_base_url").notNull(),
  accessLogRetentionDays: integer("access_log_retention_days").notNull(),
  tlsEnabled: boolean("tls_enabled").notNull(),
  revision: integer("revision").notNull(),
  updatedAt: bigint("updated_at").notNull(),
});
