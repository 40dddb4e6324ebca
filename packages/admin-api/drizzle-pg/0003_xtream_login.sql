ALTER TABLE "playback_keys" ADD COLUMN "xtream_username" text;--> statement-breakpoint
ALTER TABLE "playback_keys" ADD COLUMN "xtream_password_digest" text;--> statement-breakpoint
ALTER TABLE "playback_keys" ADD CONSTRAINT "playback_keys_xtream_username_unique" UNIQUE("xtream_username");