import { bigint, boolean, integer, json, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/** Playback keys for `/p/{token}/…`: digest and 10-character display prefix only. */
export const playbackKeys = twinTable("playback_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  note: text("note").notNull().default(""),
  tokenPrefix: text("token_prefix").notNull(),
  /** Hex SHA-256 of the plaintext. */
  digest: text("digest").notNull().unique(),
  /** JSON array of channel ids; empty means every channel. */
  channelIds: json("channel_ids").$type<string[]>().notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: bigint("created_at").notNull(),
  lastUsedAt: bigint("last_used_at"),
  revokedAt: bigint("revoked_at"),
  expiresAt: bigint("expires_at"),
  /** Concurrent streams under the key (extensions "Connection limits"); null: unlimited. */
  maxConnections: integer("max_connections"),
  revision: integer("revision").notNull().default(1),
  /** Extensions "Xtream Codes output": the login name (unique), null without one. */
  xtreamUsername: text("xtream_username").unique(),
  /** Hex SHA-256 of the generated Xtream password; never the password. */
  xtreamPasswordDigest: text("xtream_password_digest"),
});
