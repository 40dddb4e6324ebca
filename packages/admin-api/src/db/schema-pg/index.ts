import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
} from "drizzle-orm/pg-core";
import type { StoredEgressDocument } from "../../services/egress/egress-document.js";

/**
 * The PostgreSQL description of the state database (`server.database_url`,
 * operator contract "Cluster mode"): the same tables, columns and indexes as
 * the SQLite schema in `../schema/` (see there for what each holds), in
 * PostgreSQL's types: epoch milliseconds as `bigint`, flags as `boolean`,
 * JSON documents as `jsonb`. Plus `state_versions`, the change counter other
 * instances poll to refresh their in-memory mirrors, and `channel_leases`, the
 * packaging leases of cluster mode.
 */

/** Epoch milliseconds (or seconds): beyond int4, read back as a JS number. */
const epoch = (name: string) => bigint(name, { mode: "number" });

export const apiTokenAudit = pgTable(
  "api_token_audit",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tokenId: text("token_id").notNull(),
    tokenPrefix: text("token_prefix").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    requiredScope: text("required_scope"),
    decision: text("decision", { enum: ["allow", "deny"] }).notNull(),
    status: integer("status").notNull(),
    remote: text("remote").notNull(),
    userAgent: text("user_agent").notNull(),
    requestId: text("request_id").notNull(),
    reason: text("reason"),
    createdAt: epoch("created_at").notNull(),
  },
  (t) => [
    index("api_token_audit_created_idx").on(t.createdAt),
    index("api_token_audit_known_idx").on(t.id).where(sql`${t.tokenId} <> ''`),
    index("api_token_audit_unknown_idx").on(t.id).where(sql`${t.tokenId} = ''`),
  ],
);

export const apiTokens = pgTable("api_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  note: text("note").notNull().default(""),
  tokenPrefix: text("token_prefix").notNull(),
  digest: text("digest").notNull().unique(),
  scopes: jsonb("scopes").$type<string[]>().notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdBy: text("created_by").notNull(),
  createdAt: epoch("created_at").notNull(),
  expiresAt: epoch("expires_at"),
  lastUsedAt: epoch("last_used_at"),
  revokedAt: epoch("revoked_at"),
  revision: integer("revision").notNull().default(1),
  updatedAt: epoch("updated_at").notNull(),
});

/**
 * PostgreSQL only: the packaging lease of each DASH channel (operator contract "Cluster
 * mode": one instance packages a channel at a time). `owner_id` is the owning process
 * (random per start), `owner_url` its `advertise_url`; `generation` grows with every
 * acquisition; `expires_at` and `renewed_at` are epoch ms by the database's clock. A
 * released lease keeps its row with `expires_at` 0, so the generation keeps counting.
 */
export const channelLeases = pgTable("channel_leases", {
  channelId: text("channel_id").primaryKey(),
  ownerId: text("owner_id").notNull(),
  ownerUrl: text("owner_url").notNull(),
  generation: bigint("generation", { mode: "number" }).notNull(),
  expiresAt: epoch("expires_at").notNull(),
  renewedAt: epoch("renewed_at").notNull(),
});

export const channels = pgTable(
  "channels",
  {
    id: text("id").primaryKey(),
    title: text("title").notNull(),
    group: text("group").notNull().default(""),
    logoUrl: text("logo_url").notNull().default(""),
    epgId: text("epg_id").notNull().default(""),
    epgName: text("epg_name").notNull().default(""),
    epgSource: text("epg_source").notNull().default(""),
    ingress: text("ingress", { enum: ["hls", "dash", "ts"] }).notNull(),
    sourceUrl: text("source_url").notNull().default(""),
    upstream: text("upstream").notNull().default(""),
    path: text("path").notNull().default(""),
    headers: jsonb("headers").$type<Record<string, string>>().notNull(),
    userAgent: text("user_agent").notNull().default(""),
    onDemand: boolean("on_demand").notNull().default(true),
    autostart: boolean("autostart").notNull().default(false),
    disabled: boolean("disabled").notNull().default(false),
    preferHeight: integer("prefer_height"),
    preferredAudioLanguages: jsonb("preferred_audio_languages").$type<string[]>().notNull(),
    sortOrder: integer("sort_order").notNull().default(0),
    maxViewers: integer("max_viewers"),
    engine: text("engine", { enum: ["auto", "native", "ffmpeg"] })
      .notNull()
      .default("auto"),
    keys: jsonb("keys").$type<Record<string, string>>().notNull(),
    egressMode: text("egress_mode", { enum: ["auto", "direct", "profile"] })
      .notNull()
      .default("auto"),
    egressProfileId: text("egress_profile_id"),
    revision: integer("revision").notNull().default(1),
    updatedAt: epoch("updated_at").notNull(),
  },
  (t) => [index("channels_sort_idx").on(t.sortOrder, t.id)],
);

export const credentialOverrides = pgTable("credential_overrides", {
  configUsername: text("config_username").primaryKey(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  authRevision: integer("auth_revision").notNull(),
  updatedAt: epoch("updated_at").notNull(),
});

export const egressConfig = pgTable("egress_config", {
  id: integer("id").primaryKey(),
  document: jsonb("document").$type<StoredEgressDocument>().notNull(),
  source: text("source").notNull(),
  revision: integer("revision").notNull(),
  updatedAt: epoch("updated_at").notNull(),
});

export const guideChannels = pgTable(
  "guide_channels",
  {
    sourceId: text("source_id").notNull(),
    xmltvId: text("xmltv_id").notNull(),
    displayNames: jsonb("display_names").$type<string[]>().notNull(),
    icon: text("icon").notNull().default(""),
    present: boolean("present").notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.xmltvId] }),
    index("guide_channels_xmltv_idx").on(t.xmltvId),
  ],
);

export const guideProgrammes = pgTable(
  "guide_programmes",
  {
    sourceId: text("source_id").notNull(),
    /** The start time of its refresh, epoch ms: beyond int4. */
    generation: epoch("generation").notNull(),
    xmltvId: text("xmltv_id").notNull(),
    /** UTC instants, epoch seconds. */
    start: epoch("start").notNull(),
    stop: epoch("stop"),
    body: text("body").notNull(),
  },
  (t) => [index("guide_programmes_by_start").on(t.sourceId, t.generation, t.xmltvId, t.start)],
);

export const guideSourceStatus = pgTable("guide_source_status", {
  sourceId: text("source_id").primaryKey(),
  lastAttempt: epoch("last_attempt"),
  lastSuccess: epoch("last_success"),
  stale: boolean("stale").notNull().default(false),
  error: text("error"),
  channelCount: integer("channel_count").notNull().default(0),
  programmeCount: integer("programme_count").notNull().default(0),
  generation: epoch("generation"),
  etag: text("etag"),
  lastModified: text("last_modified"),
  metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
});

export const guideSources = pgTable("guide_sources", {
  id: text("id").primaryKey(),
  preset: boolean("preset").notNull().default(false),
  name: text("name"),
  url: text("url"),
  timezone: text("timezone"),
  proxy: text("proxy"),
  enabled: boolean("enabled"),
  hidden: boolean("hidden").notNull().default(false),
  position: integer("position").notNull(),
  revision: integer("revision").notNull().default(1),
  updatedAt: epoch("updated_at").notNull(),
});

export const playbackAccessLog = pgTable(
  "playback_access_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tokenId: text("token_id").notNull(),
    tokenPrefix: text("token_prefix").notNull(),
    path: text("path").notNull(),
    channelId: text("channel_id"),
    status: integer("status").notNull(),
    remote: text("remote").notNull(),
    createdAt: epoch("created_at").notNull(),
  },
  (t) => [
    index("playback_access_log_created_idx").on(t.createdAt),
    index("playback_access_log_token_idx").on(t.tokenId, t.id),
  ],
);

export const playbackKeys = pgTable("playback_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  note: text("note").notNull().default(""),
  tokenPrefix: text("token_prefix").notNull(),
  digest: text("digest").notNull().unique(),
  channelIds: jsonb("channel_ids").$type<string[]>().notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: epoch("created_at").notNull(),
  lastUsedAt: epoch("last_used_at"),
  revokedAt: epoch("revoked_at"),
  expiresAt: epoch("expires_at"),
  revision: integer("revision").notNull().default(1),
});

export const settings = pgTable("settings", {
  id: integer("id").primaryKey(),
  publicBaseUrl: text("public_base_url").notNull(),
  accessLogRetentionDays: integer("access_log_retention_days").notNull(),
  tlsEnabled: boolean("tls_enabled").notNull(),
  revision: integer("revision").notNull(),
  updatedAt: epoch("updated_at").notNull(),
});

export const stateMarkers = pgTable("state_markers", {
  name: text("name").primaryKey(),
  setAt: epoch("set_at").notNull(),
});

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

/**
 * PostgreSQL only: the viewer seats of channels with `max_viewers`, counted
 * across instances (operator contract "Cluster mode"). A seat is taken by one
 * atomic count-and-insert under a per-channel advisory lock; renewals arrive in
 * batches; expired rows are deleted. Embedded SQLite keeps seats in memory.
 */
export const viewerSeats = pgTable(
  "viewer_seats",
  {
    channelId: text("channel_id").notNull(),
    leaseId: text("lease_id").notNull(),
    expiresAt: epoch("expires_at").notNull(),
    /** The instance that last took or renewed the seat (for operators; not a lock). */
    instance: text("instance").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.channelId, t.leaseId] }),
    index("viewer_seats_expires_idx").on(t.expiresAt),
  ],
);

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
