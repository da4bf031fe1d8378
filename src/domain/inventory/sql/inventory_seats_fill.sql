-- Triggers inventories_seats_insert (AFTER INSERT ON inventories, when it is seated) and
-- inventories_seats_update (AFTER UPDATE OF seating_plan_id, seating_category, when either moved):
-- an inventory given seating (or given another plan or category) gets one inventory_seats row per
-- seat it sells (src/domain/seating/seating.table.ts), its place for adjacency copied from
-- seating_plan_seats, with the valid ticket sold in it (not one given away: its new ticket sits there) and whether it is blocked (none, while
-- seating may still change: inventory-seating.ts); an inventory that stops selling seats has none.
CREATE OR REPLACE FUNCTION inventory_seats_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM inventory_seats AS s WHERE s.inventory_id = NEW.id;
  IF NEW.seating_plan_id IS NOT NULL THEN
    INSERT INTO inventory_seats (inventory_id, seat_id, zone_index, row_index, ord, run, row_seats, ticket_id, blocked)
    SELECT NEW.id, p.seat_id, p.zone_index, p.row_index, p.ord, p.run, p.row_seats, t.id, b.seat_id IS NOT NULL
      FROM seating_plan_seats AS p
      LEFT JOIN tickets AS t ON t.inventory_id = NEW.id AND t.seat_id = p.seat_id AND t.voided_at IS NULL AND t.transferred_at IS NULL
      LEFT JOIN seat_blocks AS b ON b.inventory_id = NEW.id AND b.seat_id = p.seat_id
     WHERE p.plan_id = NEW.seating_plan_id AND p.category = NEW.seating_category;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER inventories_seats_insert AFTER INSERT ON inventories
  FOR EACH ROW WHEN (NEW.seating_plan_id IS NOT NULL) EXECUTE FUNCTION inventory_seats_fill();--> statement-breakpoint
CREATE OR REPLACE TRIGGER inventories_seats_update AFTER UPDATE OF seating_plan_id, seating_category ON inventories
  FOR EACH ROW WHEN (OLD.seating_plan_id IS DISTINCT FROM NEW.seating_plan_id OR OLD.seating_category IS DISTINCT FROM NEW.seating_category)
  EXECUTE FUNCTION inventory_seats_fill();
