CREATE TABLE "api_token_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "api_token_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"token_id" text NOT NULL,
	"token_prefix" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"required_scope" text,
	"decision" text NOT NULL,
	"status" integer NOT NULL,
	"remote" text NOT NULL,
	"user_agent" text NOT NULL,
	"request_id" text NOT NULL,
	"reason" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"token_prefix" text NOT NULL,
	"digest" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint,
	"last_used_at" bigint,
	"revoked_at" bigint,
	"revision" integer DEFAULT 1 NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "api_tokens_digest_unique" UNIQUE("digest")
);
--> statement-breakpoint
CREATE TABLE "channel_leases" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"owner_url" text NOT NULL,
	"generation" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"renewed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "channels" (
	"id" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"group" text DEFAULT '' NOT NULL,
	"logo_url" text DEFAULT '' NOT NULL,
	"epg_id" text DEFAULT '' NOT NULL,
	"epg_name" text DEFAULT '' NOT NULL,
	"epg_source" text DEFAULT '' NOT NULL,
	"ingress" text NOT NULL,
	"source_url" text DEFAULT '' NOT NULL,
	"upstream" text DEFAULT '' NOT NULL,
	"path" text DEFAULT '' NOT NULL,
	"headers" jsonb NOT NULL,
	"user_agent" text DEFAULT '' NOT NULL,
	"on_demand" boolean DEFAULT true NOT NULL,
	"autostart" boolean DEFAULT false NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"prefer_height" integer,
	"preferred_audio_languages" jsonb NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"max_viewers" integer,
	"engine" text DEFAULT 'auto' NOT NULL,
	"keys" jsonb NOT NULL,
	"egress_mode" text DEFAULT 'auto' NOT NULL,
	"egress_profile_id" text,
	"revision" integer DEFAULT 1 NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credential_overrides" (
	"config_username" text PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"auth_revision" integer NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "credential_overrides_username_unique" UNIQUE("username")
);
--> statement-breakpoint
CREATE TABLE "egress_config" (
	"id" integer PRIMARY KEY NOT NULL,
	"document" jsonb NOT NULL,
	"source" text NOT NULL,
	"revision" integer NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guide_channels" (
	"source_id" text NOT NULL,
	"xmltv_id" text NOT NULL,
	"display_names" jsonb NOT NULL,
	"icon" text DEFAULT '' NOT NULL,
	"present" boolean DEFAULT true NOT NULL,
	CONSTRAINT "guide_channels_source_id_xmltv_id_pk" PRIMARY KEY("source_id","xmltv_id")
);
--> statement-breakpoint
CREATE TABLE "guide_programmes" (
	"source_id" text NOT NULL,
	"generation" bigint NOT NULL,
	"xmltv_id" text NOT NULL,
	"start" bigint NOT NULL,
	"stop" bigint,
	"body" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guide_source_status" (
	"source_id" text PRIMARY KEY NOT NULL,
	"last_attempt" bigint,
	"last_success" bigint,
	"stale" boolean DEFAULT false NOT NULL,
	"error" text,
	"channel_count" integer DEFAULT 0 NOT NULL,
	"programme_count" integer DEFAULT 0 NOT NULL,
	"generation" bigint,
	"etag" text,
	"last_modified" text,
	"metadata" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guide_sources" (
	"id" text PRIMARY KEY NOT NULL,
	"preset" boolean DEFAULT false NOT NULL,
	"name" text,
	"url" text,
	"timezone" text,
	"proxy" text,
	"enabled" boolean,
	"hidden" boolean DEFAULT false NOT NULL,
	"position" integer NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "login_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "playback_access_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "playback_access_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"token_id" text NOT NULL,
	"token_prefix" text NOT NULL,
	"path" text NOT NULL,
	"channel_id" text,
	"status" integer NOT NULL,
	"remote" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "playback_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"token_prefix" text NOT NULL,
	"digest" text NOT NULL,
	"channel_ids" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"revoked_at" bigint,
	"expires_at" bigint,
	"revision" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "playback_keys_digest_unique" UNIQUE("digest")
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"id" integer PRIMARY KEY NOT NULL,
	"public_base_url" text NOT NULL,
	"access_log_retention_days" integer NOT NULL,
	"tls_enabled" boolean NOT NULL,
	"revision" integer NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "state_markers" (
	"name" text PRIMARY KEY NOT NULL,
	"set_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "state_versions" (
	"resource" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "viewer_seats" (
	"channel_id" text NOT NULL,
	"lease_id" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"instance" text NOT NULL,
	CONSTRAINT "viewer_seats_channel_id_lease_id_pk" PRIMARY KEY("channel_id","lease_id")
);
--> statement-breakpoint
CREATE INDEX "api_token_audit_created_idx" ON "api_token_audit" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "api_token_audit_known_idx" ON "api_token_audit" USING btree ("id") WHERE "api_token_audit"."token_id" <> '';--> statement-breakpoint
CREATE INDEX "api_token_audit_unknown_idx" ON "api_token_audit" USING btree ("id") WHERE "api_token_audit"."token_id" = '';--> statement-breakpoint
CREATE INDEX "channels_sort_idx" ON "channels" USING btree ("sort_order","id");--> statement-breakpoint
CREATE INDEX "guide_channels_xmltv_idx" ON "guide_channels" USING btree ("xmltv_id");--> statement-breakpoint
CREATE UNIQUE INDEX "guide_programmes_key" ON "guide_programmes" USING btree ("source_id","generation","xmltv_id","start");--> statement-breakpoint
CREATE INDEX "login_windows_start_idx" ON "login_windows" USING btree ("window_start");--> statement-breakpoint
CREATE INDEX "playback_access_log_created_idx" ON "playback_access_log" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "playback_access_log_token_idx" ON "playback_access_log" USING btree ("token_id","id");--> statement-breakpoint
CREATE INDEX "viewer_seats_expires_idx" ON "viewer_seats" USING btree ("expires_at");