CREATE TABLE "checkin_devices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"name" text NOT NULL,
	"event_ids" uuid[],
	"pairing_code_hash" text,
	"pairing_expires_at" timestamp with time zone,
	"token_hash" text,
	"paired_at" timestamp with time zone,
	"hardware" text,
	"software" text,
	"last_seen_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkin_lists" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"name" text NOT NULL,
	"inventory_ids" uuid[],
	"variants" text[],
	"allow_multiple_entries" boolean DEFAULT false NOT NULL,
	"allow_entry_after_exit" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkins" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seller_id" uuid NOT NULL,
	"list_id" uuid,
	"device_id" uuid NOT NULL,
	"ticket_id" uuid,
	"identifier" text NOT NULL,
	"type" text NOT NULL,
	"successful" boolean NOT NULL,
	"reason" text,
	"forced" boolean DEFAULT false NOT NULL,
	"nonce" text,
	"scanned_at" timestamp with time zone NOT NULL,
	"annulled_at" timestamp with time zone,
	"answer" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "checkins_forced_check" CHECK (not "checkins"."forced" or "checkins"."successful")
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "changed_xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
ALTER TABLE "checkin_devices" ADD CONSTRAINT "checkin_devices_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkin_lists" ADD CONSTRAINT "checkin_lists_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkin_lists" ADD CONSTRAINT "checkin_lists_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkins" ADD CONSTRAINT "checkins_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkins" ADD CONSTRAINT "checkins_list_id_checkin_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."checkin_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkins" ADD CONSTRAINT "checkins_device_id_checkin_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."checkin_devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkins" ADD CONSTRAINT "checkins_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkin_devices_seller_idx" ON "checkin_devices" USING btree ("seller_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "checkin_devices_pairing_code_key" ON "checkin_devices" USING btree ("pairing_code_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "checkin_devices_token_key" ON "checkin_devices" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "checkin_lists_event_idx" ON "checkin_lists" USING btree ("event_id","created_at");--> statement-breakpoint
CREATE INDEX "checkin_lists_seller_idx" ON "checkin_lists" USING btree ("seller_id");--> statement-breakpoint
CREATE UNIQUE INDEX "checkins_device_nonce_key" ON "checkins" USING btree ("device_id","nonce");--> statement-breakpoint
CREATE INDEX "checkins_ticket_list_idx" ON "checkins" USING btree ("ticket_id","list_id","scanned_at");--> statement-breakpoint
CREATE INDEX "checkins_list_created_idx" ON "checkins" USING btree ("list_id","created_at");--> statement-breakpoint
CREATE INDEX "tickets_inventory_changed_idx" ON "tickets" USING btree ("inventory_id","changed_xid","id");