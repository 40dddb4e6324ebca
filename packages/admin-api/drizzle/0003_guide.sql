CREATE TABLE `guide_channels` (
	`source_id` text NOT NULL,
	`xmltv_id` text NOT NULL,
	`display_names` text NOT NULL,
	`icon` text DEFAULT '' NOT NULL,
	`present` integer DEFAULT true NOT NULL,
	PRIMARY KEY(`source_id`, `xmltv_id`)
);
--> statement-breakpoint
CREATE INDEX `guide_channels_xmltv_idx` ON `guide_channels` (`xmltv_id`);--> statement-breakpoint
CREATE TABLE `guide_programmes` (
	`source_id` text NOT NULL,
	`generation` integer NOT NULL,
	`xmltv_id` text NOT NULL,
	`start` integer NOT NULL,
	`stop` integer,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `guide_programmes_key` ON `guide_programmes` (`source_id`,`generation`,`xmltv_id`,`start`);--> statement-breakpoint
CREATE TABLE `guide_source_status` (
	`source_id` text PRIMARY KEY NOT NULL,
	`last_attempt` integer,
	`last_success` integer,
	`stale` integer DEFAULT false NOT NULL,
	`error` text,
	`channel_count` integer DEFAULT 0 NOT NULL,
	`programme_count` integer DEFAULT 0 NOT NULL,
	`generation` integer,
	`etag` text,
	`last_modified` text,
	`metadata` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `guide_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`preset` integer DEFAULT false NOT NULL,
	`name` text,
	`url` text,
	`timezone` text,
	`proxy` text,
	`enabled` integer,
	`hidden` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`updated_at` integer NOT NULL
);
