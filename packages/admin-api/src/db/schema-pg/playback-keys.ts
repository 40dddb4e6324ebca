import { boolean, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `playbackKeys` in PostgreSQL's types; what it holds: `../schema/playback-keys.ts`. */
export const playbackKeys = pgTable("playback_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  note: text("note").notNull().default(""),
  tokenPrefix: text("token_prefix").notNull(),
  digest: text("digest").notNull().unique(),
  channelIds: jsonb("channel_ids").$type<string[]>().notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: epoch("created_at").notNull(),
  lastUsedAt: epoch("last_used_at"),
  revokedAt: epoch("revoked_at"),
  expiresAt: epoch("expires_at"),
  maxConnections: integer("max_connections"),
  revision: integer("revision").notNull().default(1),
  xtreamUsername: text("xtream_username").unique(),
  xtreamPasswordDigest: text("xtream_password_digest"),
});
