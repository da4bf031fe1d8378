CREATE TABLE "inventory_seats" (
	"inventory_id" uuid NOT NULL,
	"seat_id" text NOT NULL,
	"zone_index" integer NOT NULL,
	"row_index" integer NOT NULL,
	"ord" integer NOT NULL,
	"run" integer NOT NULL,
	"row_seats" integer NOT NULL,
	"ticket_id" uuid,
	"blocked" boolean DEFAULT false NOT NULL,
	CONSTRAINT "inventory_seats_inventory_id_seat_id_pk" PRIMARY KEY("inventory_id","seat_id")
);
--> statement-breakpoint
ALTER TABLE "inventory_seats" ADD CONSTRAINT "inventory_seats_inventory_id_inventories_id_fk" FOREIGN KEY ("inventory_id") REFERENCES "public"."inventories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inventory_seats_open_idx" ON "inventory_seats" USING btree ("inventory_id","row_index","run","ord") WHERE "inventory_seats"."ticket_id" is null and not "inventory_seats"."blocked";--> statement-breakpoint
-- The seats of the inventories seated before this migration, as they stand now.
INSERT INTO "inventory_seats" (inventory_id, seat_id, zone_index, row_index, ord, run, row_seats, ticket_id, blocked)
SELECT i.id, p.seat_id, p.zone_index, p.row_index, p.ord, p.run, p.row_seats, t.id, b.seat_id IS NOT NULL
  FROM inventories AS i
  JOIN seating_plan_seats AS p ON p.plan_id = i.seating_plan_id AND p.category = i.seating_category
  LEFT JOIN tickets AS t ON t.inventory_id = i.id AND t.seat_id = p.seat_id AND t.voided_at IS NULL
  LEFT JOIN seat_blocks AS b ON b.inventory_id = i.id AND b.seat_id = p.seat_id;
