import { bigint, boolean, integer, json, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/** Administrator API tokens: only the SHA-256 digest and a display prefix are kept. */
export const apiTokens = twinTable("api_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  note: text("note").notNull().default(""),
  tokenPrefix: text("token_prefix").notNull(),
  /** Hex SHA-256 of the plaintext. */
  digest: text("digest").notNull().unique(),
  /** JSON array of scopes. */
  scopes: json("scopes").$type<string[]>().notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdBy: text("created_by").notNull(),
  createdAt: bigint("created_at").notNull(),
  expiresAt: bigint("expires_at"),
  lastUsedAt: bigint("last_used_at"),
  revokedAt: bigint("revoked_at"),
  revision: integer("revision").notNull().default(1),
  updatedAt: bigint("updated_at").notNull(),
});
