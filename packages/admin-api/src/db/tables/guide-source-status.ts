import { bigint, boolean, integer, json, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * Refresh state of one guide source (spec "Guide source", status entry) and the
 * generation of its programmes that readers use: a refresh writes a new
 * generation and switches to it only when the whole document was read, so a
 * failed refresh never shows partial data and never wipes the last good one.
 */
export const guideSourceStatus = twinTable("guide_source_status", {
  sourceId: text("source_id").primaryKey(),
  /** Epoch milliseconds; null before the first attempt. */
  lastAttempt: bigint("last_attempt"),
  lastSuccess: bigint("last_success"),
  stale: boolean("stale").notNull().default(false),
  error: text("error"),
  channelCount: integer("channel_count").notNull().default(0),
  programmeCount: integer("programme_count").notNull().default(0),
  /** Programme generation readers use; null while no document was ever read. */
  generation: bigint("generation"),
  /** Validators of the last good download (RFC 9110 13.1), for conditional requests. */
  etag: text("etag"),
  lastModified: text("last_modified"),
  /** JSON object: generator info, bytes, compression of the last good download. */
  metadata: json("metadata").$type<Record<string, unknown>>().notNull(),
});
