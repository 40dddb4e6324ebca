import { bigint, pgTable, text } from "drizzle-orm/pg-core";

/**
 * One row per mirrored resource (`channels`, `accounts`, `api_tokens`,
 * `playback_keys`, `settings`, `egress`, `guide`): every write transaction of
 * that resource adds one (and notifies), and each instance reads the table to
 * reload what another instance changed: on the notification, before an admin
 * request, and every second as a fallback (operator contract "Cluster mode":
 * seen within 1 s; read-after-write for admin reads).
 */
export const stateVersions = pgTable("state_versions", {
  resource: text("resource").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull().default(0),
});
