CREATE TABLE "m3u_source_status" (
	"source_id" text PRIMARY KEY NOT NULL,
	"last_attempt" bigint,
	"last_success" bigint,
	"error" text,
	"created" integer DEFAULT 0 NOT NULL,
	"updated" integer DEFAULT 0 NOT NULL,
	"disabled" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"etag" text,
	"last_modified" text
);
--> statement-breakpoint
CREATE TABLE "m3u_sources" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"refresh_interval_min" integer NOT NULL,
	"upstream" text DEFAULT '' NOT NULL,
	"group_filter" jsonb NOT NULL,
	"remove_missing" boolean DEFAULT false NOT NULL,
	"position" integer NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "m3u_source" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "m3u_synced" jsonb;