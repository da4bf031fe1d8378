CREATE TABLE "ticket_signing_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"kid" text NOT NULL,
	"x" text NOT NULL,
	"sealed_seed" text NOT NULL,
	"active" boolean DEFAULT false NOT NULL,
	"legacy" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "signing_key_id" uuid;--> statement-breakpoint
ALTER TABLE "ticket_signing_keys" ADD CONSTRAINT "ticket_signing_keys_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_signing_keys_kid_key" ON "ticket_signing_keys" USING btree ("seller_id","kid");--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_signing_keys_active_key" ON "ticket_signing_keys" USING btree ("seller_id") WHERE "ticket_signing_keys"."active";--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_signing_keys_legacy_key" ON "ticket_signing_keys" USING btree ("seller_id") WHERE "ticket_signing_keys"."legacy";--> statement-breakpoint
CREATE INDEX "ticket_signing_keys_seller_idx" ON "ticket_signing_keys" USING btree ("seller_id","created_at");--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_signing_key_id_ticket_signing_keys_id_fk" FOREIGN KEY ("signing_key_id") REFERENCES "public"."ticket_signing_keys"("id") ON DELETE no action ON UPDATE no action;