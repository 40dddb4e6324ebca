import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Playback keys for `/p/{token}/…`: digest and 10-character display prefix only. */
export const playbackKeys = sqliteTable("playback_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  note: text("note").notNull().default(""),
  tokenPrefix: text("token_prefix").notNull(),
  /** Hex SHA-256 of the plaintext. */
  digest: text("digest").notNull().unique(),
  /** JSON array of channel ids; empty means every channel. */
  channelIds: text("channel_ids", { mode: "json" }).$type<string[]>().notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  createdAt: integer("created_at").notNull(),
  lastUsedAt: integer("last_used_at"),
  revokedAt: integer("revoked_at"),
  expiresAt: integer("expires_at"),
  /** Concurrent streams under the key (extensions "Connection limits"); null: unlimited. */
  maxConnections: integer("max_connections"),
  revision: integer("revision").notNull().default(1),
  /** Extensions "Xtream Codes output": the login name (unique), null without one. */
  xtreamUsername: text("xtream_username").unique(),
  /** Hex SHA-256 of the generated Xtream password; never the password. */
  xtreamPasswordDigest: text("xtream_password_digest"),
});
