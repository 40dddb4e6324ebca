import { bigint, integer, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * Sync state of one M3U provider source: the last attempt (also the claim that
 * lets one instance of a cluster refresh it per interval), the last result, and
 * the validators of the last good download for conditional requests (RFC 9110 13.1).
 */
export const m3uSourceStatus = twinTable("m3u_source_status", {
  sourceId: text("source_id").primaryKey(),
  /** Epoch milliseconds; null before the first attempt. */
  lastAttempt: bigint("last_attempt"),
  lastSuccess: bigint("last_success"),
  error: text("error"),
  created: integer("created").notNull().default(0),
  updated: integer("updated").notNull().default(0),
  disabled: integer("disabled").notNull().default(0),
  skipped: integer("skipped").notNull().default(0),
  etag: text("etag"),
  lastModified: text("last_modified"),
});
