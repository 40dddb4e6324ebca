ALTER TABLE "guide_programmes" ALTER COLUMN "generation" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "guide_source_status" ALTER COLUMN "generation" SET DATA TYPE bigint;