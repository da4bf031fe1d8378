-- The checkout's sale under the locks, in one round trip: locks the inventories and counts their
-- holds (lock_inventories_with_held), answers those rows as they were before the sale and, when
-- every wanted quantity fits (published event, capacity - sold - held >= quantity), adds the
-- quantities to sold. When something does not fit it sells nothing; the caller refuses and rolls back.
CREATE FUNCTION sell_held_tickets(p_seller uuid, p_ids uuid[], p_quantities integer[], p_basket uuid)
RETURNS TABLE (id uuid, event_id uuid, date text, name text, capacity integer, sold integer, price integer, event_status text, held integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  r record;
  fits boolean := true;
  found_rows integer := 0;
BEGIN
  FOR r IN SELECT * FROM lock_inventories_with_held(p_seller, p_ids, p_basket) AS l LOOP
    found_rows := found_rows + 1;
    IF r.event_status <> 'published' OR r.capacity - r.sold - r.held < p_quantities[array_position(p_ids, r.id)] THEN
      fits := false;
    END IF;
    id := r.id; event_id := r.event_id; date := r.date; name := r.name; capacity := r.capacity;
    sold := r.sold; price := r.price; event_status := r.event_status; held := r.held;
    RETURN NEXT;
  END LOOP;
  IF fits AND found_rows = cardinality(p_ids) THEN
    UPDATE inventories AS inv SET sold = inv.sold + w.quantity, updated_at = now()
      FROM unnest(p_ids, p_quantities) AS w(inventory_id, quantity)
     WHERE inv.id = w.inventory_id;
  END IF;
  RETURN;
END
$$;
