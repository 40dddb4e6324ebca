import { boolean, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `apiTokens` in PostgreSQL's types; what it holds: `../schema/api-tokens.ts`. */
export const apiTokens = pgTable("api_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  note: text("note").notNull().default(""),
  tokenPrefix: text("token_prefix").notNull(),
  digest: text("digest").notNull().unique(),
  scopes: jsonb("scopes").$type<string[]>().notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdBy: text("created_by").notNull(),
  createdAt: epoch("created_at").notNull(),
  expiresAt: epoch("expires_at"),
  lastUsedAt: epoch("last_used_at"),
  revokedAt: epoch("revoked_at"),
  revision: integer("revision").notNull().default(1),
  updatedAt: epoch("updated_at").notNull(),
});
