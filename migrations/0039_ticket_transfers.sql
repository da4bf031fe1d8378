CREATE TABLE "ticket_transfers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"ticket_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"identifier" text NOT NULL,
	"recipient_email" text NOT NULL,
	"recipient_name" text NOT NULL,
	"token_hash" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"new_ticket_id" uuid,
	"new_order_id" uuid,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ticket_transfers_status_check" CHECK ("ticket_transfers"."status" in ('pending', 'accepted', 'declined', 'cancelled', 'expired'))
);
--> statement-breakpoint
DROP INDEX "tickets_inventory_seat_key";--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "basket_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "payment_method" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "holder_changes_max" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "inventories" ADD COLUMN "transferable" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "inventories" ADD COLUMN "transfer_closes_hours" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "source" text DEFAULT 'checkout' NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "transferred_from" jsonb;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "code_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "holder_name" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "holder_document" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "holder_changes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "transferred_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "origin_ticket_id" uuid;--> statement-breakpoint
ALTER TABLE "ticket_transfers" ADD CONSTRAINT "ticket_transfers_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_transfers" ADD CONSTRAINT "ticket_transfers_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_transfers" ADD CONSTRAINT "ticket_transfers_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_transfers" ADD CONSTRAINT "ticket_transfers_new_ticket_id_tickets_id_fk" FOREIGN KEY ("new_ticket_id") REFERENCES "public"."tickets"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_transfers" ADD CONSTRAINT "ticket_transfers_new_order_id_orders_id_fk" FOREIGN KEY ("new_order_id") REFERENCES "public"."orders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_transfers_token_key" ON "ticket_transfers" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_transfers_pending_key" ON "ticket_transfers" USING btree ("ticket_id") WHERE "ticket_transfers"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "ticket_transfers_order_idx" ON "ticket_transfers" USING btree ("order_id","created_at");--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_origin_ticket_id_tickets_id_fk" FOREIGN KEY ("origin_ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tickets_origin_idx" ON "tickets" USING btree ("origin_ticket_id") WHERE "tickets"."origin_ticket_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_inventory_seat_key" ON "tickets" USING btree ("inventory_id","seat_id") WHERE "tickets"."seat_id" is not null and "tickets"."voided_at" is null and "tickets"."transferred_at" is null;--> statement-breakpoint
ALTER TABLE "inventories" ADD CONSTRAINT "inventories_transfer_closes_hours_check" CHECK ("inventories"."transfer_closes_hours" between 0 and 720);--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_source_check" CHECK ("orders"."source" in ('checkout', 'transfer') and ("orders"."source" = 'transfer') = ("orders"."transferred_from" is not null)
          and ("orders"."source" = 'transfer' or ("orders"."basket_id" is not null and "orders"."payment_method" is not null)));--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_code_version_check" CHECK ("tickets"."code_version" >= 0 and "tickets"."holder_changes" >= 0);