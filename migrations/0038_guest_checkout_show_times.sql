ALTER TABLE "coupon_redemptions" ALTER COLUMN "customer_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "customer_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "guest_checkout" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "venue" jsonb;--> statement-breakpoint
ALTER TABLE "inventories" ADD COLUMN "time" text;--> statement-breakpoint
ALTER TABLE "inventories" ADD COLUMN "doors_time" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "buyer_email" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "buyer_name" text;--> statement-breakpoint
-- Every order so far is a customer's: its buyer is the customer as the account reads now.
UPDATE "orders" o SET "buyer_email" = c."email", "buyer_name" = trim(c."first_name" || ' ' || c."last_name") FROM "customers" c WHERE c."id" = o."customer_id";--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "buyer_email" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "buyer_name" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "order_token_hash" text;--> statement-breakpoint
CREATE INDEX "orders_seller_buyer_email_idx" ON "orders" USING btree ("seller_id",lower("buyer_email"));--> statement-breakpoint
ALTER TABLE "inventories" ADD CONSTRAINT "inventories_time_check" CHECK ("inventories"."time" ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$' and "inventories"."doors_time" ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$');--> statement-breakpoint
ALTER TABLE "inventories" ADD CONSTRAINT "inventories_doors_time_check" CHECK ("inventories"."doors_time" <= "inventories"."time");