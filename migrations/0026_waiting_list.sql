-- The waiting list (src/domain/waiting-list): its entries and the turns that serve them. The sale
-- rule learns that free tickets go to the queue first (src/domain/inventory/sql/sale_standing.sql,
-- fed by tickets_queued.sql) and that a basket keeps what it holds (tickets_held.sql answers a
-- basket's own holds, and take_tickets whether the basket is being opened): their signatures
-- changed, so the old ones go before the function files are applied.
DROP FUNCTION IF EXISTS inventory_standings(uuid, uuid[], integer[], uuid, uuid[]);--> statement-breakpoint
DROP FUNCTION IF EXISTS sale_standing(boolean, text, boolean, integer);--> statement-breakpoint
DROP FUNCTION IF EXISTS tickets_held(uuid, uuid);--> statement-breakpoint
DROP FUNCTION IF EXISTS take_tickets(uuid, uuid[], integer[], uuid, uuid[], integer[], text[], boolean);--> statement-breakpoint
CREATE TABLE "waiting_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"inventory_id" uuid NOT NULL,
	"variant" text,
	"quantity" integer NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"affiliate_id" uuid,
	"customer_id" uuid,
	"priority" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'waiting' NOT NULL,
	"offered_at" timestamp with time zone,
	"offer_expires_at" timestamp with time zone,
	"basket_id" uuid,
	"token_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "waiting_entries_quantity_check" CHECK ("waiting_entries"."quantity" between 1 and 20)
);
--> statement-breakpoint
CREATE TABLE "waiting_list_turns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"inventory_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "waiting_list_offer_minutes" integer DEFAULT 1440 NOT NULL;--> statement-breakpoint
ALTER TABLE "inventories" ADD COLUMN "waiting_list" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "waiting_entries" ADD CONSTRAINT "waiting_entries_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waiting_entries" ADD CONSTRAINT "waiting_entries_inventory_id_inventories_id_fk" FOREIGN KEY ("inventory_id") REFERENCES "public"."inventories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waiting_entries" ADD CONSTRAINT "waiting_entries_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waiting_entries" ADD CONSTRAINT "waiting_entries_basket_id_baskets_id_fk" FOREIGN KEY ("basket_id") REFERENCES "public"."baskets"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waiting_list_turns" ADD CONSTRAINT "waiting_list_turns_inventory_id_inventories_id_fk" FOREIGN KEY ("inventory_id") REFERENCES "public"."inventories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "waiting_entries_live_email_key" ON "waiting_entries" USING btree ("inventory_id",lower("email")) WHERE "waiting_entries"."status" in ('waiting', 'offered');--> statement-breakpoint
CREATE INDEX "waiting_entries_queue_idx" ON "waiting_entries" USING btree ("inventory_id","priority" DESC NULLS LAST,"created_at","id") WHERE "waiting_entries"."status" = 'waiting';--> statement-breakpoint
CREATE INDEX "waiting_entries_offered_idx" ON "waiting_entries" USING btree ("offer_expires_at") WHERE "waiting_entries"."status" = 'offered';--> statement-breakpoint
CREATE UNIQUE INDEX "waiting_entries_token_key" ON "waiting_entries" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "waiting_entries_seller_idx" ON "waiting_entries" USING btree ("seller_id","created_at");--> statement-breakpoint
CREATE INDEX "waiting_list_turns_pending_idx" ON "waiting_list_turns" USING btree ("inventory_id") WHERE "waiting_list_turns"."status" = 'pending' and "waiting_list_turns"."locked_until" is null;--> statement-breakpoint
CREATE INDEX "waiting_list_turns_due_idx" ON "waiting_list_turns" USING btree ("status","next_attempt_at");