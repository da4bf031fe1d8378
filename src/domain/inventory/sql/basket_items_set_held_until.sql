-- Trigger basket_items_held_until (BEFORE INSERT OR UPDATE OF basket_id ON basket_items): an item
-- holds its tickets until its basket expires, while the basket is open.
CREATE OR REPLACE FUNCTION basket_items_set_held_until() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.held_until := (SELECT CASE WHEN b.status = 'open' THEN b.expires_at END FROM baskets b WHERE b.id = NEW.basket_id);
  RETURN NEW;
END
$$;
