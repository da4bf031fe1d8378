-- The one sale rule for a seat: how each seat of a seated inventory stands, in one word:
--   'sold'     a valid (not voided) ticket of the inventory sits in it;
--   'blocked'  the back office blocked it for this inventory (seat_blocks);
--   'held'     an open, unexpired basket other than p_except holds it (seats_held, in
--              tickets_held.sql: a seat is held exactly while the count that includes it is);
--   'free'     otherwise: the only seats a hold or a sale may take.
-- With the holder where there is one (basket_id, ticket_id), and where the seat stands for
-- adjacency (seating_plan_seats: zone and row in the plan's order, ord in its row, run between
-- aisles, row_seats). The seats of an unseated inventory: none. The held, sold and blocked seats
-- are each read once, by their index, into a map (jsonb) that every seat of the plan is looked up
-- in: joined seat by seat instead, PostgreSQL's generic plan (take_tickets.sql forces one)
-- expected one seat and rescanned the holds for each of the plan's (90 ms for 1,000 seats and 500
-- holds, against 3). p_only: only these seats (null: all), as a hold checks the seats it names or
-- keeps without reading every seat's holder. Asked by take_tickets.sql (under
-- the inventory's locks), seats_best_available.sql, seats_stranded.sql and the readings of the map
-- and the back office (seating/*.repo.ts). Counts and seats agree: a seated item holds as many
-- seats as its quantity (basket_items_seats_check), and a ticket sells one. LANGUAGE sql, STABLE,
-- RETURNS TABLE: inlined into the calling statement, read with its snapshot.
CREATE OR REPLACE FUNCTION seat_standings(p_inventory uuid, p_except uuid, p_only text[])
RETURNS TABLE (seat_id text, zone_index integer, row_index integer, ord integer, run integer, row_seats integer,
               status text, basket_id uuid, ticket_id uuid)
LANGUAGE sql STABLE AS $$
  SELECT s.seat_id, s.zone_index, s.row_index, s.ord, s.run, s.row_seats,
         CASE WHEN m.sold ? s.seat_id THEN 'sold' WHEN m.blocked ? s.seat_id THEN 'blocked' WHEN m.held ? s.seat_id THEN 'held' ELSE 'free' END,
         (m.held ->> s.seat_id)::uuid, (m.sold ->> s.seat_id)::uuid
    FROM inventories i
    CROSS JOIN LATERAL (
      SELECT (SELECT coalesce(jsonb_object_agg(h.seat, h.basket_id), '{}'::jsonb) FROM seats_held(p_inventory, p_except) AS h
               WHERE p_only IS NULL OR h.seat = ANY (p_only)) AS held,
             (SELECT coalesce(jsonb_object_agg(t.seat_id, t.id), '{}'::jsonb)
                FROM tickets t WHERE t.inventory_id = p_inventory AND t.seat_id IS NOT NULL AND t.voided_at IS NULL
                 AND (p_only IS NULL OR t.seat_id = ANY (p_only))) AS sold,
             (SELECT coalesce(jsonb_object_agg(b.seat_id, true), '{}'::jsonb) FROM seat_blocks b
               WHERE b.inventory_id = p_inventory AND (p_only IS NULL OR b.seat_id = ANY (p_only))) AS blocked
    ) AS m
    JOIN seating_plan_seats s ON s.plan_id = i.seating_plan_id AND s.category = i.seating_category
   WHERE i.id = p_inventory AND (p_only IS NULL OR s.seat_id = ANY (p_only))
$$;
