-- Locks a seller's inventory rows (in id order, NO KEY UPDATE) and answers them with the tickets
-- held by open baskets other than p_except (tickets_held.sql), counted AFTER the locks are granted: a VOLATILE
-- function takes a fresh snapshot for each statement, so the count sees every hold committed by
-- whoever held the locks before. One round trip instead of two while the locks are held.
CREATE OR REPLACE FUNCTION lock_inventories_with_held(p_seller uuid, p_ids uuid[], p_except uuid)
RETURNS TABLE (id uuid, event_id uuid, date text, name text, capacity integer, sold integer, price integer, event_status text, held integer)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM 1 FROM inventories i WHERE i.id = ANY (p_ids) AND i.seller_id = p_seller ORDER BY i.id FOR NO KEY UPDATE OF i;
  RETURN QUERY
    SELECT i.id, i.event_id, i.date::text, i.name, i.capacity, i.sold, i.price, e.status, h.held
      FROM inventories i JOIN events e ON e.id = i.event_id CROSS JOIN LATERAL tickets_held(i.id, p_except) AS h
     WHERE i.id = ANY (p_ids) AND i.seller_id = p_seller
     ORDER BY i.id;
END
$$;
