import { bigint, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `playbackAccessLog` in PostgreSQL's types; what it holds: `../schema/playback-access-log.ts`. */
export const playbackAccessLog = pgTable(
  "playback_access_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tokenId: text("token_id").notNull(),
    tokenPrefix: text("token_prefix").notNull(),
    path: text("path").notNull(),
    channelId: text("channel_id"),
    status: integer("status").notNull(),
    remote: text("remote").notNull(),
    createdAt: epoch("created_at").notNull(),
    stampUs: epoch("stamp_us").notNull().default(0),
  },
  (t) => [
    index("playback_access_log_created_idx").on(t.createdAt),
    index("playback_access_log_stamp_idx").on(t.stampUs, t.id),
    index("playback_access_log_token_idx").on(t.tokenId, t.stampUs, t.id),
  ],
);
