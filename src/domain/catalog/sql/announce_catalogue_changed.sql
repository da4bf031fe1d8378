-- Announces (channel catalogue_changed, payload: the seller id) every change of what a seller's
-- catalogue shows: an event written or removed, an inventory added, removed, or its date, show
-- times, name, price, capacity or variants changed. Every process forgets its cached catalogue answers of
-- that seller at commit. Sales and holds are not announced (they would be one notice per
-- checkout): cached answers live at most CATALOGUE_CACHE_MS (1 s) for them. Its triggers:
-- events_catalogue_changed (migration 0017) and inventories_catalogue_changed (made in migration
-- 0017, replaced below so that it watches the show times too).
CREATE OR REPLACE FUNCTION announce_catalogue_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('catalogue_changed', OLD.seller_id::text);
  ELSE
    PERFORM pg_notify('catalogue_changed', NEW.seller_id::text);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER inventories_catalogue_changed AFTER INSERT OR DELETE OR UPDATE OF event_id, date, time, doors_time, name, price, capacity, variants ON inventories
  FOR EACH ROW EXECUTE FUNCTION announce_catalogue_changed();
