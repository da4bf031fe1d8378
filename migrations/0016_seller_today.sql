-- The seller's "today": the date in its time zone (sellers.timezone, IANA). Inventories dated
-- before it are past: not listed as on sale, not held, not sold.
CREATE FUNCTION seller_today(p_seller uuid) RETURNS date
LANGUAGE sql STABLE AS $$
  SELECT (now() AT TIME ZONE coalesce((SELECT s.timezone FROM sellers s WHERE s.id = p_seller), 'America/Sao_Paulo'))::date
$$;
--> statement-breakpoint
-- take_tickets of 0010, which also refuses past inventories and answers `past` with each row.
-- "Held" has the same definition here as in 0008 and in inventory/held.ts: change them together.
DROP FUNCTION take_tickets(uuid, uuid[], integer[], uuid, uuid[], integer[], boolean);
--> statement-breakpoint
CREATE FUNCTION take_tickets(p_seller uuid, p_ids uuid[], p_quantities integer[], p_basket uuid, p_scope uuid[], p_prices integer[], p_sell boolean)
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
       OR (p_prices IS NOT NULL AND r.price IS DISTINCT FROM p_prices[n]) THEN
      fits := false;
    END IF;
    release := (SELECT extract(epoch FROM min(bi.held_until) - now()) * 1000 FROM basket_items bi
                 WHERE bi.inventory_id = r.id AND bi.held_until > now());
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
