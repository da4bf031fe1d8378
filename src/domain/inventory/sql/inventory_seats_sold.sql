-- Triggers tickets_seats_insert, tickets_seats_update and tickets_seats_delete (AFTER, on tickets
-- with a seat): the seat a valid (not voided) ticket sits in is sold (inventory_seats.ticket_id);
-- a ticket voided, deleted or moved off its seat frees it, if it is still the one recorded there.
-- At most one valid ticket sits in a seat (tickets_inventory_seat_key), so the seat follows it.
CREATE OR REPLACE FUNCTION inventory_seats_sold() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.seat_id IS NOT NULL THEN
    UPDATE inventory_seats AS s SET ticket_id = NULL
     WHERE s.inventory_id = OLD.inventory_id AND s.seat_id = OLD.seat_id AND s.ticket_id = OLD.id;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.seat_id IS NOT NULL AND NEW.voided_at IS NULL THEN
    UPDATE inventory_seats AS s SET ticket_id = NEW.id
     WHERE s.inventory_id = NEW.inventory_id AND s.seat_id = NEW.seat_id;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER tickets_seats_insert AFTER INSERT ON tickets
  FOR EACH ROW WHEN (NEW.seat_id IS NOT NULL) EXECUTE FUNCTION inventory_seats_sold();--> statement-breakpoint
CREATE OR REPLACE TRIGGER tickets_seats_update AFTER UPDATE OF seat_id, voided_at, inventory_id ON tickets
  FOR EACH ROW WHEN (OLD.seat_id IS NOT NULL OR NEW.seat_id IS NOT NULL) EXECUTE FUNCTION inventory_seats_sold();--> statement-breakpoint
CREATE OR REPLACE TRIGGER tickets_seats_delete AFTER DELETE ON tickets
  FOR EACH ROW WHEN (OLD.seat_id IS NOT NULL) EXECUTE FUNCTION inventory_seats_sold();
