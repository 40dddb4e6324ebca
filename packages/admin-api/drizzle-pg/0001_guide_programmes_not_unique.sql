DROP INDEX "guide_programmes_key";--> statement-breakpoint
CREATE INDEX "guide_programmes_by_start" ON "guide_programmes" USING btree ("source_id","generation","xmltv_id","start");