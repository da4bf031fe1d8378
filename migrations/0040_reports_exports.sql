CREATE TABLE "export_chunks" (
	"export_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "export_chunks_export_id_seq_pk" PRIMARY KEY("export_id","seq")
);
--> statement-breakpoint
CREATE TABLE "exports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"type" text NOT NULL,
	"format" text NOT NULL,
	"from_date" date,
	"to_date" date,
	"event_id" uuid,
	"status" text DEFAULT 'running' NOT NULL,
	"progress" integer DEFAULT 0 NOT NULL,
	"rows" integer,
	"bytes" bigint,
	"sha256" text,
	"error" text,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exports_status_check" CHECK ("exports"."status" in ('running', 'done', 'failed')),
	CONSTRAINT "exports_progress_check" CHECK ("exports"."progress" between 0 and 100)
);
--> statement-breakpoint
ALTER TABLE "affiliates" ADD COLUMN "commission_rate" numeric(6, 5) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "export_chunks" ADD CONSTRAINT "export_chunks_export_id_exports_id_fk" FOREIGN KEY ("export_id") REFERENCES "public"."exports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exports" ADD CONSTRAINT "exports_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "exports_seller_created_idx" ON "exports" USING btree ("seller_id","created_at");--> statement-breakpoint
CREATE INDEX "exports_running_idx" ON "exports" USING btree ("seller_id") WHERE "exports"."status" = 'running';--> statement-breakpoint
CREATE INDEX "checkins_seller_scanned_idx" ON "checkins" USING btree ("seller_id","scanned_at","id");--> statement-breakpoint
CREATE INDEX "transactions_seller_created_idx" ON "transactions" USING btree ("seller_id","created_at");--> statement-breakpoint
ALTER TABLE "affiliates" ADD CONSTRAINT "affiliates_commission_rate_check" CHECK ("affiliates"."commission_rate" between 0 and 1);