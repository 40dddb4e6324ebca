DROP INDEX `api_token_audit_known_idx`;--> statement-breakpoint
DROP INDEX `api_token_audit_unknown_idx`;--> statement-breakpoint
ALTER TABLE `api_token_audit` ADD `stamp_us` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows written before this migration: their time, in order of their ids within one millisecond.
UPDATE `api_token_audit` SET `stamp_us` = `created_at` * 1000;--> statement-breakpoint
CREATE INDEX `api_token_audit_known_idx` ON `api_token_audit` (`stamp_us`,`id`) WHERE "api_token_audit"."token_id" != '';--> statement-breakpoint
CREATE INDEX `api_token_audit_unknown_idx` ON `api_token_audit` (`stamp_us`,`id`) WHERE "api_token_audit"."token_id" = '';--> statement-breakpoint
DROP INDEX `playback_access_log_token_idx`;--> statement-breakpoint
ALTER TABLE `playback_access_log` ADD `stamp_us` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows written before this migration: their time, in order of their ids within one millisecond.
UPDATE `playback_access_log` SET `stamp_us` = `created_at` * 1000;--> statement-breakpoint
CREATE INDEX `playback_access_log_stamp_idx` ON `playback_access_log` (`stamp_us`,`id`);--> statement-breakpoint
CREATE INDEX `playback_access_log_token_idx` ON `playback_access_log` (`token_id`,`stamp_us`,`id`);