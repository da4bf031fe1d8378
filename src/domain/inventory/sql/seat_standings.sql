-- The one sale rule for a seat: how each seat of a seated inventory stands, in one word:
--   'sold'     a valid (not voided) ticket of the inventory sits in it;
--   'blocked'  the back office blocked it for this inventory (seat_blocks);
--   'held'     an open, unexpired basket other than p_except holds it (seats_held, in
--              tickets_held.sql: a seat is held exactly while the count that includes it is);
--   'free'     otherwise: the only seats a hold or a sale may take.
-- With the holder where there is one (basket_id, ticket_id), and where the seat stands for
-- adjacency (seating_plan_seats: zone and row in the plan's order, ord in its row, run between
-- aisles, row_seats). The seats of an unseated inventory: none. Asked by take_tickets.sql (under
-- the inventory's locks), seats_best_available.sql, seats_stranded.sql and the readings of the map
-- and the back office (seating/*.repo.ts). Counts and seats agree: a seated item holds as many
-- seats as its quantity (basket_items_seats_check), and a ticket sells one. LANGUAGE sql, STABLE,
-- RETURNS TABLE: inlined into the calling statement, read with its snapshot.
CREATE OR REPLACE FUNCTION seat_standings(p_inventory uuid, p_except uuid)
RETURNS TABLE (seat_id text, zone_index integer, row_index integer, ord integer, run integer, row_seats integer,
               status text, basket_id uuid, ticket_id uuid)
LANGUAGE sql STABLE AS $$
  SELECT s.seat_id, s.zone_index, s.row_index, s.ord, s.run, s.row_seats,
         CASE WHEN t.id IS NOT NULL THEN 'sold' WHEN b.seat_id IS NOT NULL THEN 'blocked' WHEN h.basket_id IS NOT NULL THEN 'held' ELSE 'free' END,
         h.basket_id, t.id
    FROM inventories i
    JOIN seating_plan_seats s ON s.plan_id = i.seating_plan_id AND s.category = i.seating_category
    LEFT JOIN seat_blocks b ON b.inventory_id = i.id AND b.seat_id = s.seat_id
    LEFT JOIN seats_held(p_inventory, p_except) AS h ON h.seat = s.seat_id
    LEFT JOIN tickets t ON t.inventory_id = i.id AND t.seat_id = s.seat_id AND t.voided_at IS NULL
   WHERE i.id = p_inventory
$$;
