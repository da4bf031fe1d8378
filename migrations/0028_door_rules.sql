ALTER TABLE "inventories" ADD COLUMN "checkin_attention" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "checkin_lists" ADD COLUMN "revision" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "checkins" ADD COLUMN "request_sha256" text;