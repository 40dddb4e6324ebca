CREATE TABLE `egress_config` (
	`id` integer PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`source` text NOT NULL,
	`revision` integer NOT NULL,
	`updated_at` integer NOT NULL
);
