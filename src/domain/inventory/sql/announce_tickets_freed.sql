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
-- it counted runs out. Every inventory announced is also nudged to its waiting list
-- (waiting_list_nudge.sql), whose sweep notices the holds that simply run out. Its triggers (migration 0011): inventories_tickets_freed,
-- events_tickets_freed, basket_items_tickets_freed_delete and basket_items_tickets_freed_update.
CREATE OR REPLACE FUNCTION announce_tickets_freed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'inventories' THEN
    PERFORM pg_notify('tickets_freed', NEW.id::text);
    PERFORM waiting_list_nudge(ARRAY[NEW.id]);
  ELSIF TG_TABLE_NAME = 'events' THEN
    PERFORM pg_notify('tickets_freed', i.id::text) FROM inventories i WHERE i.event_id = NEW.id;
    PERFORM waiting_list_nudge(ARRAY(SELECT i.id FROM inventories i WHERE i.event_id = NEW.id));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('tickets_freed', OLD.inventory_id::text);
    PERFORM waiting_list_nudge(ARRAY[OLD.inventory_id]);
  ELSIF NOT EXISTS (SELECT 1 FROM baskets b WHERE b.id = NEW.basket_id AND b.status = 'checked_out') THEN
    PERFORM pg_notify('tickets_freed', NEW.inventory_id::text);
    PERFORM waiting_list_nudge(ARRAY[NEW.inventory_id]);
  END IF;
  RETURN NULL;
END
$$;
