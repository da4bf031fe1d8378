-- A hold or a sale decided under the inventory locks, refusing by raising an error instead of
-- answering rows for the caller to judge: a statement that cannot succeed wrongly can be sent
-- in the same round trip as the COMMIT, so that the locks are released as soon as the database
-- has decided, not once the application has read the answer (on a busy server that read waits
-- its turn on the event loop while every other buyer of the inventory waits for the lock).
--
-- Locks the inventories (lock_inventories_with_held: id order, NO KEY UPDATE, holds of open
-- baskets other than p_basket counted after the locks are granted). Everything fits when every
-- id is the seller's, its event is published and, when p_scope is not null, one of p_scope,
-- capacity - sold - held >= its quantity and, when p_prices is not null, its price is still the
-- one given. Then, with p_sell, the quantities are added to sold, and the rows are answered as
-- they were before the sale, each with the milliseconds until the first hold of any basket on it
-- runs out (first_release_ms, null when none). Otherwise nothing changes and it raises SQLSTATE
-- BX409 with the rows (JSON, camelCase) as DETAIL, for the application to say exactly what did
-- not fit.
-- "Held" has the same definition here as in 0008 and in holds.repo.ts: change them together.
CREATE FUNCTION take_tickets(p_seller uuid, p_ids uuid[], p_quantities integer[], p_basket uuid, p_scope uuid[], p_prices integer[], p_sell boolean)
RETURNS TABLE (id uuid, event_id uuid, date text, name text, capacity integer, sold integer, price integer, event_status text, held integer,
               first_release_ms double precision)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  r record;
  n integer;
  fits boolean := true;
  found_rows integer := 0;
  seen jsonb := '[]'::jsonb;
  release double precision;
BEGIN
  FOR r IN SELECT * FROM lock_inventories_with_held(p_seller, p_ids, p_basket) AS l LOOP
    found_rows := found_rows + 1;
    n := array_position(p_ids, r.id);
    IF r.event_status <> 'published'
       OR (p_scope IS NOT NULL AND NOT (r.event_id = ANY (p_scope)))
       OR r.capacity - r.sold - r.held < p_quantities[n]
       OR (p_prices IS NOT NULL AND r.price IS DISTINCT FROM p_prices[n]) THEN
      fits := false;
    END IF;
    release := (SELECT extract(epoch FROM min(bi.held_until) - now()) * 1000 FROM basket_items bi
                 WHERE bi.inventory_id = r.id AND bi.held_until > now());
    seen := seen || jsonb_build_object('id', r.id, 'eventId', r.event_id, 'date', r.date, 'name', r.name, 'capacity', r.capacity,
                                       'sold', r.sold, 'price', r.price, 'eventStatus', r.event_status, 'held', r.held,
                                       'firstReleaseMs', release);
    id := r.id; event_id := r.event_id; date := r.date; name := r.name; capacity := r.capacity;
    sold := r.sold; price := r.price; event_status := r.event_status; held := r.held; first_release_ms := release;
    RETURN NEXT;
  END LOOP;
  IF NOT fits OR found_rows <> cardinality(p_ids) THEN
    RAISE EXCEPTION 'the tickets asked for do not fit' USING ERRCODE = 'BX409', DETAIL = seen::text;
  END IF;
  IF p_sell THEN
    UPDATE inventories AS inv SET sold = inv.sold + w.quantity, updated_at = now()
      FROM unnest(p_ids, p_quantities) AS w(inventory_id, quantity)
     WHERE inv.id = w.inventory_id;
  END IF;
  RETURN;
END
$$;
