import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Changed login credentials (spec "Configured user"), keyed by the username in
 * the config file and applied over that entry at startup.
 */
export const credentialOverrides = sqliteTable("credential_overrides", {
  configUsername: text("config_username").primaryKey(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  authRevision: integer("auth_revision").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
