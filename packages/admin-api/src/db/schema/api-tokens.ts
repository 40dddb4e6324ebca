import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Administrator API tokens: only the SHA-256 digest and a display prefix are kept. */
export const apiTokens = sqliteTable("api_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  note: text("note").notNull().default(""),
  tokenPrefix: text("token_prefix").notNull(),
  /** Hex SHA-256 of the plaintext. */
  digest: text("digest").notNull().unique(),
  /** JSON array of scopes. */
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  createdBy: text("created_by").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at"),
  lastUsedAt: integer("last_used_at"),
  revokedAt: integer("revoked_at"),
  revision: integer("revision").notNull().default(1),
  updatedAt: integer("updated_at").notNull(),
});
