-- The one sale rule: locks the inventories asked for (lock_inventories_with_held, in id order)
-- and decides, under the locks, whether the tickets may be taken: the event is published, the
-- date is not before the seller's today (seller_today), the event is in the caller's scope
-- (p_scope, an affiliate's events; null: all), the capacity left after sales and holds of other
-- baskets covers each quantity, and, when the caller priced with them, each unit price
-- (p_prices) and each inventory's variants (p_variants[n]: md5 of the variants' jsonb text as
-- read, or null where no item buys a variant) are unchanged. Refuses with SQLSTATE BX409 and, in
-- DETAIL, the rows as read (JSON); otherwise answers them, and with p_sell adds the quantities to
-- sold. A change of its arguments or result needs a migration that drops the old signature first
-- (CREATE OR REPLACE cannot change them).
CREATE OR REPLACE FUNCTION take_tickets(p_seller uuid, p_ids uuid[], p_quantities integer[], p_basket uuid, p_scope uuid[], p_prices integer[], p_variants text[], p_sell boolean)
RETURNS TABLE (id uuid, event_id uuid, date text, name text, capacity integer, sold integer, price integer, event_status text, held integer,
               past boolean, first_release_ms double precision)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  r record;
  n integer;
  fits boolean := true;
  found_rows integer := 0;
  seen jsonb := '[]'::jsonb;
  release double precision;
  today date := seller_today(p_seller);
  is_past boolean;
BEGIN
  FOR r IN SELECT * FROM lock_inventories_with_held(p_seller, p_ids, p_basket) AS l LOOP
    found_rows := found_rows + 1;
    n := array_position(p_ids, r.id);
    is_past := r.date::date < today;
    IF r.event_status <> 'published'
       OR is_past
       OR (p_scope IS NOT NULL AND NOT (r.event_id = ANY (p_scope)))
       OR r.capacity - r.sold - r.held < p_quantities[n]
       OR (p_prices IS NOT NULL AND r.price IS DISTINCT FROM p_prices[n])
       OR (p_variants IS NOT NULL AND p_variants[n] IS NOT NULL
           AND p_variants[n] IS DISTINCT FROM (SELECT md5(i.variants::text) FROM inventories i WHERE i.id = r.id)) THEN
      fits := false;
    END IF;
    release := (SELECT h.first_release_ms FROM tickets_held(r.id, NULL) AS h);
    seen := seen || jsonb_build_object('id', r.id, 'eventId', r.event_id, 'date', r.date, 'name', r.name, 'capacity', r.capacity,
                                       'sold', r.sold, 'price', r.price, 'eventStatus', r.event_status, 'held', r.held,
                                       'past', is_past, 'firstReleaseMs', release);
    id := r.id; event_id := r.event_id; date := r.date; name := r.name; capacity := r.capacity;
    sold := r.sold; price := r.price; event_status := r.event_status; held := r.held; past := is_past; first_release_ms := release;
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
