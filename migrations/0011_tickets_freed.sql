-- Announces (channel tickets_freed, payload: the inventory id) every change that can make more
-- tickets of an inventory available, delivered to every listening process at commit: a
-- process that remembers a sold-out reading to refuse the next buyers without asking the
-- database (AvailabilityMemo) forgets it then. What makes tickets available:
--   * an inventory's capacity grows or its sold count falls (an order cancelled);
--   * a hold ends early: a basket item removed or lowered, or a basket expired or renewed
--     shorter, while its basket is still open (a checkout turns holds into sales: nothing
--     becomes available, and it says nothing);
--   * an event starts selling again.
-- Holds that simply run out are not announced: a reading is trusted only until the first hold
-- it counted runs out.
CREATE FUNCTION announce_tickets_freed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'inventories' THEN
    PERFORM pg_notify('tickets_freed', NEW.id::text);
  ELSIF TG_TABLE_NAME = 'events' THEN
    PERFORM pg_notify('tickets_freed', i.id::text) FROM inventories i WHERE i.event_id = NEW.id;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('tickets_freed', OLD.inventory_id::text);
  ELSIF NOT EXISTS (SELECT 1 FROM baskets b WHERE b.id = NEW.basket_id AND b.status = 'checked_out') THEN
    PERFORM pg_notify('tickets_freed', NEW.inventory_id::text);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER inventories_tickets_freed AFTER UPDATE OF capacity, sold ON "inventories"
  FOR EACH ROW WHEN (NEW.capacity > OLD.capacity OR NEW.sold < OLD.sold)
  EXECUTE FUNCTION announce_tickets_freed();--> statement-breakpoint
CREATE TRIGGER events_tickets_freed AFTER UPDATE OF status ON "events"
  FOR EACH ROW WHEN (NEW.status = 'published' AND OLD.status IS DISTINCT FROM 'published')
  EXECUTE FUNCTION announce_tickets_freed();--> statement-breakpoint
CREATE TRIGGER basket_items_tickets_freed_delete AFTER DELETE ON "basket_items"
  FOR EACH ROW WHEN (OLD.held_until IS NOT NULL)
  EXECUTE FUNCTION announce_tickets_freed();--> statement-breakpoint
CREATE TRIGGER basket_items_tickets_freed_update AFTER UPDATE OF quantity, held_until ON "basket_items"
  FOR EACH ROW WHEN (OLD.held_until IS NOT NULL AND (NEW.quantity < OLD.quantity OR NEW.held_until IS NULL OR NEW.held_until < OLD.held_until))
  EXECUTE FUNCTION announce_tickets_freed();
