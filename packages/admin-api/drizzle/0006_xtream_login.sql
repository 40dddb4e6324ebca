ALTER TABLE `playback_keys` ADD `xtream_username` text;--> statement-breakpoint
ALTER TABLE `playback_keys` ADD `xtream_password_digest` text;--> statement-breakpoint
CREATE UNIQUE INDEX `playback_keys_xtream_username_unique` ON `playback_keys` (`xtream_username`);