import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/**
 * PostgreSQL only: the login limiter's fixed one-minute windows (spec
 * "Limits"), shared by every instance so a round-robin balancer does not
 * multiply an attacker's budget. Rows outlive their window by at most a minute.
 */
export const loginWindows = pgTable(
  "login_windows",
  {
    key: text("key").primaryKey(),
    windowStart: epoch("window_start").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [index("login_windows_start_idx").on(t.windowStart)],
);
