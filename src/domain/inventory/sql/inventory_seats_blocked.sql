-- Triggers seat_blocks_seats (AFTER INSERT OR DELETE ON seat_blocks): a seat blocked for an
-- inventory, or unblocked, says so in its inventory_seats row.
CREATE OR REPLACE FUNCTION inventory_seats_blocked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE inventory_seats AS s SET blocked = false WHERE s.inventory_id = OLD.inventory_id AND s.seat_id = OLD.seat_id;
  ELSE
    UPDATE inventory_seats AS s SET blocked = true WHERE s.inventory_id = NEW.inventory_id AND s.seat_id = NEW.seat_id;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER seat_blocks_seats AFTER INSERT OR DELETE ON seat_blocks
  FOR EACH ROW EXECUTE FUNCTION inventory_seats_blocked();
