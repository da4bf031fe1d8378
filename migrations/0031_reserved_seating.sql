CREATE TABLE "seat_blocks" (
	"inventory_id" uuid NOT NULL,
	"seat_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "seat_blocks_inventory_id_seat_id_pk" PRIMARY KEY("inventory_id","seat_id"),
	CONSTRAINT "seat_blocks_seat_check" CHECK (length("seat_blocks"."seat_id") > 0)
);
--> statement-breakpoint
CREATE TABLE "seating_plan_seats" (
	"plan_id" uuid NOT NULL,
	"seat_id" text NOT NULL,
	"zone_index" integer NOT NULL,
	"zone" text NOT NULL,
	"row_index" integer NOT NULL,
	"row" text NOT NULL,
	"number" text NOT NULL,
	"category" text NOT NULL,
	"x" double precision NOT NULL,
	"y" double precision NOT NULL,
	"ord" integer NOT NULL,
	"run" integer NOT NULL,
	"row_seats" integer NOT NULL,
	CONSTRAINT "seating_plan_seats_plan_id_seat_id_pk" PRIMARY KEY("plan_id","seat_id")
);
--> statement-breakpoint
CREATE TABLE "seating_plans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seller_id" uuid NOT NULL,
	"name" text NOT NULL,
	"plan" jsonb NOT NULL,
	"categories" jsonb NOT NULL,
	"seats" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "seating_no_orphans" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "inventories" ADD COLUMN "seating_plan_id" uuid;--> statement-breakpoint
ALTER TABLE "inventories" ADD COLUMN "seating_category" text;--> statement-breakpoint
ALTER TABLE "inventories" ADD COLUMN "seats_blocked" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "basket_items" ADD COLUMN "seats" text[];--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "seat_id" text;--> statement-breakpoint
ALTER TABLE "seat_blocks" ADD CONSTRAINT "seat_blocks_inventory_id_inventories_id_fk" FOREIGN KEY ("inventory_id") REFERENCES "public"."inventories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seating_plan_seats" ADD CONSTRAINT "seating_plan_seats_plan_id_seating_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."seating_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seating_plans" ADD CONSTRAINT "seating_plans_seller_id_sellers_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."sellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "seating_plan_seats_category_idx" ON "seating_plan_seats" USING btree ("plan_id","category","zone_index","row_index","ord");--> statement-breakpoint
CREATE INDEX "seating_plans_seller_idx" ON "seating_plans" USING btree ("seller_id","created_at");--> statement-breakpoint
CREATE INDEX "inventories_seating_plan_idx" ON "inventories" USING btree ("seating_plan_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_inventory_seat_key" ON "tickets" USING btree ("inventory_id","seat_id") WHERE "tickets"."seat_id" is not null and "tickets"."voided_at" is null;--> statement-breakpoint
ALTER TABLE "inventories" ADD CONSTRAINT "inventories_seating_check" CHECK (("inventories"."seating_plan_id" is null) = ("inventories"."seating_category" is null));--> statement-breakpoint
ALTER TABLE "inventories" ADD CONSTRAINT "inventories_seats_blocked_check" CHECK ("inventories"."seats_blocked" >= 0 and "inventories"."seats_blocked" <= "inventories"."capacity");--> statement-breakpoint
ALTER TABLE "basket_items" ADD CONSTRAINT "basket_items_seats_check" CHECK ("basket_items"."seats" is null or cardinality("basket_items"."seats") = "basket_items"."quantity");--> statement-breakpoint
ALTER TABLE "inventories" ADD CONSTRAINT "inventories_seating_plan_fk" FOREIGN KEY ("seating_plan_id") REFERENCES "public"."seating_plans"("id") ON DELETE restrict ON UPDATE no action;
