-- How each of a seller's inventories p_ids stands for a caller: its row, the tickets held on it by
-- open baskets other than p_except (tickets_held.sql), what is available (tickets_available.sql),
-- whether buyers queue for it (queued, tickets_queued.sql), its standing and the tickets it still
-- sells (sale_standing.sql, told what p_except already has when p_own: false for a basket being
-- opened, whose items written by this very transaction are what it asks for, not what it holds;
-- p_scope: the caller's events,
-- null: all of the seller's), and whether the quantity asked (p_quantities[n] for p_ids[n]; null:
-- none asked) fits. Other sellers' ids are absent. One definition for every reading of a hold:
-- take_tickets.sql reads it under the inventory locks; inventory.repo.ts reads it without locks
-- (the precheck, a basket's answer, the storefront's availability). first_release_ms: until the
-- first hold of any basket (p_except's too) runs out (null: nothing held). LANGUAGE sql, STABLE,
-- RETURNS TABLE: inlined into the calling statement, read with its snapshot.
CREATE OR REPLACE FUNCTION inventory_standings(p_seller uuid, p_ids uuid[], p_quantities integer[], p_except uuid, p_scope uuid[], p_own boolean)
RETURNS TABLE (id uuid, event_id uuid, date text, name text, price integer, capacity integer, sold integer, event_status text, past boolean,
               held integer, own integer, queued boolean, available integer, standing text, tickets_left integer, fits boolean, first_release_ms double precision)
LANGUAGE sql STABLE AS $$
  SELECT i.id, i.event_id, i.date::text, i.name, i.price, i.capacity, i.sold, e.status, r.past,
         h.held, h.own, q.queued, a.available, s.standing, s.tickets_left,
         s.tickets_left >= p_quantities[array_position(p_ids, i.id)], h.first_release_ms
    FROM inventories i
    JOIN events e ON e.id = i.event_id
    CROSS JOIN LATERAL (SELECT i.date::date < seller_today(p_seller) AS past) AS r
    CROSS JOIN LATERAL tickets_held(i.id, p_except) AS h
    CROSS JOIN LATERAL (SELECT tickets_available(i.capacity - i.seats_blocked, i.sold, h.held) AS available) AS a
    -- OFFSET 0: probed once per inventory; pulled up, the probe was copied into each use of q.queued.
    CROSS JOIN LATERAL (SELECT t.queued FROM tickets_queued(i.id) AS t OFFSET 0) AS q
    CROSS JOIN LATERAL sale_standing(p_scope IS NULL OR i.event_id = ANY (p_scope), e.status, r.past, a.available, q.queued,
                                       CASE WHEN p_own THEN h.own ELSE 0 END) AS s
   WHERE i.id = ANY (p_ids) AND i.seller_id = p_seller
   ORDER BY i.id
$$;
