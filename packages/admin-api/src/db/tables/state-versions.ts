import { bigint, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * One row per mirrored resource (`channels`, `accounts`, `api_tokens`,
 * `playback_keys`, `settings`, `egress`, `guide`): every write transaction of
 * that resource adds one, and each instance reads the table to reload what
 * another instance changed (operator contract "Cluster mode": seen within 1 s;
 * read-after-write for admin reads). PostgreSQL also notifies, and reads it before
 * an admin request and every second as a fallback; on SQLite the worker processes
 * of one file (`server.workers` > 1) keep it the same way (docs/cluster.md "Workers").
 */
export const stateVersions = twinTable("state_versions", {
  resource: text("resource").primaryKey(),
  version: bigint("version").notNull().default(0),
});
