import { bigint, integer, rowId, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/** One record per use of a playback key; the key in `path` is cut to its display prefix. */
export const playbackAccessLog = twinTable(
  "playback_access_log",
  {
    id: rowId("id"),
    tokenId: text("token_id").notNull(),
    tokenPrefix: text("token_prefix").notNull(),
    path: text("path").notNull(),
    channelId: text("channel_id"),
    status: integer("status").notNull(),
    remote: text("remote").notNull(),
    createdAt: bigint("created_at").notNull(),
    /** When the request was recorded, epoch microseconds: the listing's order (see `api-token-audit.ts`). */
    stampUs: bigint("stamp_us").notNull().default(0),
  },
  (t, k) => [
    k.index("playback_access_log_created_idx").on(t.createdAt),
    k.index("playback_access_log_stamp_idx").on(t.stampUs, t.id),
    k.index("playback_access_log_token_idx").on(t.tokenId, t.stampUs, t.id),
  ],
);
