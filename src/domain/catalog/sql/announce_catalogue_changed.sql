-- Announces (channel catalogue_changed, payload: the seller id) every change of what a seller's
-- catalogue shows: an event written or removed, an inventory added, removed, or its date, name,
-- price, capacity or variants changed. Every process forgets its cached catalogue answers of
-- that seller at commit. Sales and holds are not announced (they would be one notice per
-- checkout): cached answers live at most CATALOGUE_CACHE_MS (1 s) for them. Its triggers
-- (migration 0017): events_catalogue_changed and inventories_catalogue_changed.
CREATE OR REPLACE FUNCTION announce_catalogue_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('catalogue_changed', OLD.seller_id::text);
  ELSE
    PERFORM pg_notify('catalogue_changed', NEW.seller_id::text);
  END IF;
  RETURN NULL;
END
$$;
