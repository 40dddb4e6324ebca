import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `credentialOverrides` in PostgreSQL's types; what it holds: `../schema/credential-overrides.ts`. */
export const credentialOverrides = pgTable("credential_overrides", {
  configUsername: text("config_username").primaryKey(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  authRevision: integer("auth_revision").notNull(),
  updatedAt: epoch("updated_at").notNull(),
});
