CREATE TABLE "payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"amount" bigint NOT NULL,
	"method" text NOT NULL,
	"installments" integer NOT NULL,
	"reference" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payments_amount_check" CHECK ("payments"."amount" >= 0 and "payments"."installments" >= 1)
);
--> statement-breakpoint
CREATE TABLE "refunds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"amount" bigint NOT NULL,
	"tickets" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reason" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reference" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"done_at" timestamp with time zone,
	CONSTRAINT "refunds_amount_check" CHECK ("refunds"."amount" >= 1),
	CONSTRAINT "refunds_status_check" CHECK (("refunds"."status" = 'done') = ("refunds"."done_at" is not null))
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"seller_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount" bigint NOT NULL,
	"tickets" integer NOT NULL,
	"gross" bigint NOT NULL,
	"discount" bigint NOT NULL,
	"interest" bigint NOT NULL,
	"payment_method" text,
	"affiliate_code" text,
	"coupon_code" text,
	"order_item_id" uuid,
	"inventory_id" uuid,
	"variant" text,
	"payment_id" uuid,
	"refund_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transactions_kind_check" CHECK ("transactions"."kind" in ('sale', 'void', 'payment', 'refund')),
	CONSTRAINT "transactions_shape_check" CHECK (case "transactions"."kind"
            when 'sale' then "transactions"."tickets" > 0 and "transactions"."amount" = "transactions"."gross" - "transactions"."discount" + "transactions"."interest" and "transactions"."amount" >= 0
                             and "transactions"."order_item_id" is not null and "transactions"."payment_id" is null and "transactions"."refund_id" is null
            when 'void' then "transactions"."tickets" < 0 and "transactions"."amount" = "transactions"."gross" - "transactions"."discount" + "transactions"."interest" and "transactions"."amount" <= 0
                             and "transactions"."order_item_id" is not null and "transactions"."payment_id" is null and "transactions"."refund_id" is null
            when 'payment' then "transactions"."tickets" = 0 and "transactions"."amount" > 0 and "transactions"."gross" = 0 and "transactions"."discount" = 0 and "transactions"."interest" = 0
                             and "transactions"."payment_id" is not null and "transactions"."refund_id" is null
            when 'refund' then "transactions"."tickets" = 0 and "transactions"."amount" < 0 and "transactions"."gross" = 0 and "transactions"."discount" = 0 and "transactions"."interest" = 0
                             and "transactions"."refund_id" is not null and "transactions"."payment_id" is null
          end)
);
--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "payment_minutes" jsonb DEFAULT '{"pix":30,"boleto":4320,"credit_card":30}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "withdrawal_days" integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "withdrawal_cutoff_hours" integer DEFAULT 48 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "payment_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "paid_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "refunded_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "expired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_order_item_id_order_items_id_fk" FOREIGN KEY ("order_item_id") REFERENCES "public"."order_items"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_inventory_id_inventories_id_fk" FOREIGN KEY ("inventory_id") REFERENCES "public"."inventories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_refund_id_refunds_id_fk" FOREIGN KEY ("refund_id") REFERENCES "public"."refunds"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_order_reference_key" ON "payments" USING btree ("order_id","reference");--> statement-breakpoint
CREATE INDEX "payments_order_idx" ON "payments" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE INDEX "refunds_order_idx" ON "refunds" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_seq_key" ON "transactions" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "transactions_seller_seq_idx" ON "transactions" USING btree ("seller_id","seq");--> statement-breakpoint
CREATE INDEX "transactions_order_idx" ON "transactions" USING btree ("order_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_payment_key" ON "transactions" USING btree ("payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_refund_key" ON "transactions" USING btree ("refund_id");--> statement-breakpoint
CREATE INDEX "orders_payment_due_idx" ON "orders" USING btree ("payment_due_at") WHERE "orders"."status" = 'pending';--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_status_check" CHECK ("orders"."status" in ('pending', 'confirmed', 'expired', 'cancelled'));--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_money_check" CHECK ("orders"."paid_total" >= 0 and "orders"."paid_total" <= "orders"."total" and "orders"."refunded_total" >= 0 and "orders"."refunded_total" <= "orders"."paid_total");--> statement-breakpoint
-- Orders placed before payments were recorded were paid at checkout (API.md 3.5): each gets its
-- payment, and the ledger what it sold and voided, so that its invariants hold for every order.
UPDATE "orders" SET "paid_total" = "total";--> statement-breakpoint
INSERT INTO "payments" ("seller_id", "order_id", "amount", "method", "installments", "reference", "created_at")
  SELECT "seller_id", "id", "total", "payment_method", "installments", "payment_reference", "created_at" FROM "orders";--> statement-breakpoint
INSERT INTO "transactions" ("seller_id", "order_id", "kind", "amount", "tickets", "gross", "discount", "interest", "payment_method", "affiliate_code", "payment_id", "created_at")
  SELECT o."seller_id", o."id", 'payment', p."amount", 0, 0, 0, 0, p."method", o."affiliate_code", p."id", o."created_at"
    FROM "payments" p JOIN "orders" o ON o."id" = p."order_id" WHERE p."amount" > 0;--> statement-breakpoint
-- A sale row per item: its share of the order's interest by item total, the rest to its first item.
INSERT INTO "transactions" ("seller_id", "order_id", "kind", "amount", "tickets", "gross", "discount", "interest", "payment_method", "affiliate_code",
                            "coupon_code", "order_item_id", "inventory_id", "variant", "created_at")
  SELECT s."seller_id", s."order_id", 'sale', s."gross" - s."discount" + s."interest", s."quantity", s."gross", s."discount", s."interest",
         s."payment_method", s."affiliate_code", s."coupon_code", s."item_id", s."inventory_id", s."variant", s."created_at"
    FROM (
      SELECT b.*, (b."base" + CASE WHEN b."n" = 1 THEN b."order_interest" - sum(b."base") OVER (PARTITION BY b."order_id") ELSE 0 END)::bigint AS "interest"
        FROM (
          SELECT o."seller_id", o."id" AS "order_id", i."id" AS "item_id", i."inventory_id", i."variant", i."quantity", o."payment_method",
                 o."affiliate_code", coalesce(i."coupon"->>'code', o."coupon"->>'code') AS "coupon_code", o."created_at",
                 i."unit_price" * i."quantity" AS "gross", i."discount", o."interest" AS "order_interest",
                 row_number() OVER (PARTITION BY o."id" ORDER BY i."position") AS "n",
                 CASE WHEN sum(i."total") OVER (PARTITION BY o."id") = 0 THEN 0
                      ELSE floor(o."interest" * i."total" / sum(i."total") OVER (PARTITION BY o."id"))::bigint END AS "base"
            FROM "orders" o JOIN "order_items" i ON i."order_id" = o."id"
        ) b
    ) s;--> statement-breakpoint
-- A void row per item with voided tickets: their share of its sale row, as voids are written since.
INSERT INTO "transactions" ("seller_id", "order_id", "kind", "amount", "tickets", "gross", "discount", "interest", "payment_method", "affiliate_code",
                            "coupon_code", "order_item_id", "inventory_id", "variant", "created_at")
  SELECT v."seller_id", v."order_id", 'void', -(v."gross" - v."discount" + v."interest"), -v."voided", v."gross" * -1, v."discount" * -1, v."interest" * -1,
         v."payment_method", v."affiliate_code", v."coupon_code", v."order_item_id", v."inventory_id", v."variant", v."at"
    FROM (
      SELECT s."seller_id", s."order_id", s."payment_method", s."affiliate_code", s."coupon_code", s."order_item_id", s."inventory_id", s."variant",
             x."voided", x."at", floor(s."gross" * x."voided" / s."tickets")::bigint AS "gross", floor(s."discount" * x."voided" / s."tickets")::bigint AS "discount",
             floor(s."interest" * x."voided" / s."tickets")::bigint AS "interest"
        FROM "transactions" s
        JOIN (SELECT "order_item_id", count(*)::int AS "voided", max("voided_at") AS "at" FROM "tickets" WHERE "voided_at" IS NOT NULL GROUP BY "order_item_id") x
          ON x."order_item_id" = s."order_item_id"
       WHERE s."kind" = 'sale'
    ) v;
