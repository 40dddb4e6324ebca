import { bigint, integer, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * The login limiter's fixed one-minute windows (spec "Limits"), shared by every instance of a
 * cluster so a round-robin balancer does not multiply an attacker's budget, and on SQLite by
 * the worker processes (`server.workers` > 1). Rows outlive their window by at most a minute.
 */
export const loginWindows = twinTable(
  "login_windows",
  {
    key: text("key").primaryKey(),
    windowStart: bigint("window_start").notNull(),
    count: integer("count").notNull(),
  },
  (t, k) => [k.index("login_windows_start_idx").on(t.windowStart)],
);
