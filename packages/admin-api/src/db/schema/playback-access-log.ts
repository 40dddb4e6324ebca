import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One record per use of a playback key; the key in `path` is cut to its display prefix. */
export const playbackAccessLog = sqliteTable(
  "playback_access_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenId: text("token_id").notNull(),
    tokenPrefix: text("token_prefix").notNull(),
    path: text("path").notNull(),
    channelId: text("channel_id"),
    status: integer("status").notNull(),
    remote: text("remote").notNull(),
    createdAt: integer("created_at").notNull(),
    /** When the request was recorded, epoch microseconds: the listing's order (see `api-token-audit.ts`). */
    stampUs: integer("stamp_us").notNull().default(0),
  },
  (t) => [
    index("playback_access_log_created_idx").on(t.createdAt),
    index("playback_access_log_stamp_idx").on(t.stampUs, t.id),
    index("playback_access_log_token_idx").on(t.tokenId, t.stampUs, t.id),
  ],
);
