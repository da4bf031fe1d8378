-- The one sale rule for an inventory, in one word, and the tickets it still sells:
--   'hidden'      its event is a draft, or outside the caller's events (p_visible false):
--                 answered exactly like an inventory that does not exist;
--   'past'        dated before the seller's today (p_past, from seller_today.sql);
--   'not_on_sale' its event is cancelled, finished or unpublished since;
--   'sold_out'    nothing left (p_available, from tickets_available.sql), or buyers queue for it
--                 (p_queued, from tickets_queued.sql: free tickets go to its waiting list first) and
--                 the caller holds none of it (p_own: the tickets its basket holds, tickets_held.sql);
--   'on_sale'     otherwise.
-- tickets_left is p_available when on sale, but no more than p_own while buyers queue (a basket
-- keeps, and may buy, what it holds; it gets no more), else 0. Asked by inventory_standings.sql (every reading
-- of a hold: the locked one of take_tickets.sql and the unlocked ones) and by take_tickets.sql for
-- how an inventory stands after a sale. LANGUAGE sql, IMMUTABLE, RETURNS TABLE: inlined by the
-- planner into the calling statement.
CREATE OR REPLACE FUNCTION sale_standing(p_visible boolean, p_event_status text, p_past boolean, p_available integer, p_queued boolean, p_own integer)
RETURNS TABLE (standing text, tickets_left integer)
LANGUAGE sql IMMUTABLE AS $$
  SELECT s.standing, CASE WHEN s.standing <> 'on_sale' THEN 0 WHEN p_queued THEN least(p_own, p_available) ELSE p_available END
    FROM (SELECT CASE WHEN NOT p_visible OR p_event_status = 'draft' THEN 'hidden'
                      WHEN p_past THEN 'past'
                      WHEN p_event_status <> 'published' THEN 'not_on_sale'
                      WHEN p_available <= 0 OR (p_queued AND p_own <= 0) THEN 'sold_out'
                      ELSE 'on_sale' END AS standing) AS s
$$;
