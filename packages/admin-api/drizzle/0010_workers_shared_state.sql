CREATE TABLE `channel_leases` (
	`channel_id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`owner_url` text NOT NULL,
	`generation` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`renewed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `login_windows` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_windows_start_idx` ON `login_windows` (`window_start`);--> statement-breakpoint
CREATE TABLE `state_versions` (
	`resource` text PRIMARY KEY NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `viewer_seats` (
	`channel_id` text NOT NULL,
	`lease_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`instance` text NOT NULL,
	PRIMARY KEY(`channel_id`, `lease_id`)
);
--> statement-breakpoint
CREATE INDEX `viewer_seats_expires_idx` ON `viewer_seats` (`expires_at`);