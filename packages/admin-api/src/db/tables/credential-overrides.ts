import { bigint, integer, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * Changed login credentials (spec "Configured user"), keyed by the username in
 * the config file and applied over that entry at startup.
 */
export const credentialOverrides = twinTable("credential_overrides", {
  configUsername: text("config_username").primaryKey(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  authRevision: integer("auth_revision").notNull(),
  updatedAt: bigint("updated_at").notNull(),
});
