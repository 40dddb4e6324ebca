import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Workers (`server.workers` > 1): the login limiter's fixed one-minute windows shared by the
 * worker processes, the twin of PostgreSQL's table (spec "Limits").
 */
export const loginWindows = sqliteTable(
  "login_windows",
  {
    key: text("key").primaryKey(),
    windowStart: integer("window_start").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [index("login_windows_start_idx").on(t.windowStart)],
);
