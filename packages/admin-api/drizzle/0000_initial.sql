CREATE TABLE `api_token_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_id` text NOT NULL,
	`token_prefix` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`required_scope` text,
	`decision` text NOT NULL,
	`status` integer NOT NULL,
	`remote` text NOT NULL,
	`user_agent` text NOT NULL,
	`request_id` text NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `api_token_audit_created_idx` ON `api_token_audit` (`created_at`);--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`token_prefix` text NOT NULL,
	`digest` text NOT NULL,
	`scopes` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`last_used_at` integer,
	`revoked_at` integer,
	`revision` integer DEFAULT 1 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_digest_unique` ON `api_tokens` (`digest`);--> statement-breakpoint
CREATE TABLE `channels` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`group` text DEFAULT '' NOT NULL,
	`logo_url` text DEFAULT '' NOT NULL,
	`epg_id` text DEFAULT '' NOT NULL,
	`epg_name` text DEFAULT '' NOT NULL,
	`epg_source` text DEFAULT '' NOT NULL,
	`ingress` text NOT NULL,
	`source_url` text DEFAULT '' NOT NULL,
	`upstream` text DEFAULT '' NOT NULL,
	`path` text DEFAULT '' NOT NULL,
	`headers` text NOT NULL,
	`user_agent` text DEFAULT '' NOT NULL,
	`on_demand` integer DEFAULT true NOT NULL,
	`autostart` integer DEFAULT false NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`prefer_height` integer,
	`preferred_audio_languages` text NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`max_viewers` integer,
	`engine` text DEFAULT 'auto' NOT NULL,
	`keys` text NOT NULL,
	`egress_mode` text DEFAULT 'auto' NOT NULL,
	`egress_profile_id` text,
	`revision` integer DEFAULT 1 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `channels_sort_idx` ON `channels` (`sort_order`,`id`);--> statement-breakpoint
CREATE TABLE `credential_overrides` (
	`config_username` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`password_hash` text NOT NULL,
	`auth_revision` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `credential_overrides_username_unique` ON `credential_overrides` (`username`);--> statement-breakpoint
CREATE TABLE `playback_access_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_id` text NOT NULL,
	`token_prefix` text NOT NULL,
	`path` text NOT NULL,
	`channel_id` text,
	`status` integer NOT NULL,
	`remote` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `playback_access_log_created_idx` ON `playback_access_log` (`created_at`);--> statement-breakpoint
CREATE INDEX `playback_access_log_token_idx` ON `playback_access_log` (`token_id`,`id`);--> statement-breakpoint
CREATE TABLE `playback_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`token_prefix` text NOT NULL,
	`digest` text NOT NULL,
	`channel_ids` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	`expires_at` integer,
	`revision` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `playback_keys_digest_unique` ON `playback_keys` (`digest`);--> statement-breakpoint
CREATE TABLE `settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`public_base_url` text NOT NULL,
	`access_log_retention_days` integer NOT NULL,
	`tls_enabled` integer NOT NULL,
	`revision` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `state_markers` (
	`name` text PRIMARY KEY NOT NULL,
	`set_at` integer NOT NULL
);
