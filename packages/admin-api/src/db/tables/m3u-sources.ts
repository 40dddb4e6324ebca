import { bigint, boolean, integer, json, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/** M3U provider sources (extensions.md "M3U provider sources"; docs/m3u-sources.md). */
export const m3uSources = twinTable("m3u_sources", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Absolute http(s) URL, or a path under the `upstream`'s base URL. */
  url: text("url").notNull(),
  enabled: boolean("enabled").notNull().default(true),
  refreshIntervalMin: integer("refresh_interval_min").notNull(),
  /** A config `upstreams[].id` the URL is resolved against; "" for none. */
  upstream: text("upstream").notNull().default(""),
  /** JSON array of group names kept (exact match); empty keeps every group. */
  groupFilter: json("group_filter").$type<string[]>().notNull(),
  removeMissing: boolean("remove_missing").notNull().default(false),
  /** Listing order: creation order. */
  position: integer("position").notNull(),
  revision: integer("revision").notNull().default(1),
  /** Epoch milliseconds. */
  updatedAt: bigint("updated_at").notNull(),
});
