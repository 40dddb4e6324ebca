import type { FallbackSource } from "@svc/core/catalog";
import { sql } from "drizzle-orm";
import type { M3uSynced } from "./m3u-synced.js";
import { bigint, boolean, integer, json, text, textEnum } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/** The channel catalog (operator contract "Channel object") plus its egress binding. */
export const channels = twinTable(
  "channels",
  {
    id: text("id").primaryKey(),
    title: text("title").notNull(),
    group: text("group").notNull().default(""),
    logoUrl: text("logo_url").notNull().default(""),
    epgId: text("epg_id").notNull().default(""),
    epgName: text("epg_name").notNull().default(""),
    epgSource: text("epg_source").notNull().default(""),
    ingress: textEnum("ingress", ["hls", "dash", "ts"]).notNull(),
    sourceUrl: text("source_url").notNull().default(""),
    upstream: text("upstream").notNull().default(""),
    path: text("path").notNull().default(""),
    /** JSON object of request headers sent upstream. */
    headers: json("headers").$type<Record<string, string>>().notNull(),
    userAgent: text("user_agent").notNull().default(""),
    onDemand: boolean("on_demand").notNull().default(true),
    autostart: boolean("autostart").notNull().default(false),
    disabled: boolean("disabled").notNull().default(false),
    preferHeight: integer("prefer_height"),
    /** JSON array of language codes. */
    preferredAudioLanguages: json("preferred_audio_languages").$type<string[]>().notNull(),
    sortOrder: integer("sort_order").notNull().default(0),
    /** The channel number TV apps show ("" for none; docs/hdhomerun.md "Channel numbers"). */
    guideNumber: text("guide_number").notNull().default(""),
    maxViewers: integer("max_viewers"),
    engine: textEnum("engine", ["auto", "native", "ffmpeg"]).notNull().default("auto"),
    /** JSON object `{KID hex: key hex}`. */
    keys: json("keys").$type<Record<string, string>>().notNull(),
    /** JSON array of fallback sources (extensions "Fallback sources and the slate"). */
    fallbackSources: json("fallback_sources")
      .$type<FallbackSource[]>()
      .notNull()
      .defaultSql(sql`'[]'`, sql`'[]'::jsonb`),
    egressMode: textEnum("egress_mode", ["auto", "direct", "profile"]).notNull().default("auto"),
    egressProfileId: text("egress_profile_id"),
    /** The M3U provider source that owns the channel ("" for none; docs/m3u-sources.md). */
    m3uSource: text("m3u_source").notNull().default(""),
    /** What that source's last sync wrote, to tell an operator's edit from the source's. */
    m3uSynced: json("m3u_synced").$type<M3uSynced>(),
    revision: integer("revision").notNull().default(1),
    /** Epoch milliseconds. */
    updatedAt: bigint("updated_at").notNull(),
  },
  (t, k) => [k.index("channels_sort_idx").on(t.sortOrder, t.id)],
);
