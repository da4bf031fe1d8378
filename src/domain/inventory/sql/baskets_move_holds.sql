-- Trigger baskets_move_holds (AFTER UPDATE OF status, expires_at ON baskets): a basket renewed,
-- checked out or expired moves its items' hold with it, in the same transaction.
CREATE OR REPLACE FUNCTION baskets_move_holds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE basket_items SET held_until = CASE WHEN NEW.status = 'open' THEN NEW.expires_at END WHERE basket_id = NEW.id;
  RETURN NULL;
END
$$;
