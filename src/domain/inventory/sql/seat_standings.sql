-- The one sale rule for a seat: how each seat of a seated inventory stands, in one word:
--   'sold'     a valid (not voided) ticket of the inventory sits in it (inventory_seats.ticket_id);
--   'blocked'  the back office blocked it for this inventory (inventory_seats.blocked);
--   'held'     an open, unexpired basket other than p_except holds it (seats_held, in
--              tickets_held.sql: a seat is held exactly while the count that includes it is);
--   'free'     otherwise: the only seats a hold or a sale may take.
-- With the holder where there is one (basket_id, ticket_id), and where the seat stands for
-- adjacency (zone and row in the plan's order, ord in its row, run between aisles, row_seats).
-- The seats of an unseated inventory: none. Sold and blocked are kept seat by seat in
-- inventory_seats by the triggers of inventory_seats_*.sql; holds end by the clock, so they are
-- read from the baskets (seats_held) once, by their index, into a map (jsonb) that each seat is
-- looked up in: joined seat by seat instead, PostgreSQL's generic plan (take_tickets.sql forces
-- one) expected one seat and rescanned the holds for each seat. p_only: only these seats (null:
-- all), as a hold checks the seats it names or keeps, and a best-available pick the rows it may
-- take from (seats_best_available.sql), without reading the venue: each is one lookup by the
-- primary key. Asked by take_tickets.sql (under the inventory's locks), seats_best_available.sql,
-- seats_stranded.sql and the readings of the map and the back office (seating/*.repo.ts). Counts
-- and seats agree: a seated item holds as many seats as its quantity (basket_items_seats_check),
-- and a ticket sells one. LANGUAGE sql, STABLE, RETURNS TABLE: inlined into the calling
-- statement, read with its snapshot.
CREATE OR REPLACE FUNCTION seat_standings(p_inventory uuid, p_except uuid, p_only text[])
RETURNS TABLE (seat_id text, zone_index integer, row_index integer, ord integer, run integer, row_seats integer,
               status text, basket_id uuid, ticket_id uuid)
LANGUAGE sql STABLE AS $$
  SELECT s.seat_id, s.zone_index, s.row_index, s.ord, s.run, s.row_seats,
         CASE WHEN s.ticket_id IS NOT NULL THEN 'sold' WHEN s.blocked THEN 'blocked' WHEN m.held ? s.seat_id THEN 'held' ELSE 'free' END,
         (m.held ->> s.seat_id)::uuid, s.ticket_id
    FROM (SELECT coalesce(jsonb_object_agg(h.seat, h.basket_id), '{}'::jsonb) AS held FROM seats_held(p_inventory, p_except) AS h
           WHERE p_only IS NULL OR h.seat IN (SELECT unnest(p_only))) AS m
    -- Two branches, not one OR: a generic plan (take_tickets.sql forces them) cannot tell which of
    -- `p_only IS NULL OR seat_id = ANY (p_only)` holds, and read every seat of the venue to find 200.
    CROSS JOIN LATERAL (SELECT o.* FROM inventory_seats AS o WHERE o.inventory_id = p_inventory AND p_only IS NULL
                        UNION ALL
                        SELECT o.* FROM inventory_seats AS o WHERE o.inventory_id = p_inventory AND o.seat_id = ANY (p_only)) AS s
$$;
