-- The best available seats of a seated inventory for one hold (API.md 7.7): p_quantity adjacent
-- free seats in one row (seat_standings.sql: free for p_except, leaving out p_excluded, the seats
-- this same hold takes otherwise), a block that leaves no new orphan (a free seat with no free
-- neighbour: its side seats taken, blocked, missing, or past an aisle) before any that does; then
-- the lowest zone, then row, in the plan's order; then the block whose centre is nearest the
-- row's middle counted in seats; ties: the lower position. Free seats fall into islands (runs of
-- consecutive places in one row between aisles); a block starting one seat after its island's
-- start, or ending one before its end, strands that seat. Without such a block and with
-- p_together false: the best-ranked free seats anywhere (lowest zone and row, nearest the
-- middle). seats: null when nothing fits; max_together: the largest block left. LANGUAGE sql,
-- STABLE: read with the caller's snapshot (take_tickets.sql asks it under the inventory's locks).
CREATE OR REPLACE FUNCTION seats_best_available(p_inventory uuid, p_except uuid, p_quantity integer, p_together boolean, p_excluded text[])
RETURNS TABLE (seats text[], max_together integer)
LANGUAGE sql STABLE AS $$
  WITH free AS (
    SELECT s.seat_id, s.zone_index, s.row_index, s.run, s.ord, s.row_seats,
           s.ord - row_number() OVER (PARTITION BY s.zone_index, s.row_index, s.run ORDER BY s.ord) AS island
      FROM seat_standings(p_inventory, p_except, null) AS s
     WHERE s.status = 'free' AND NOT (s.seat_id = ANY (coalesce(p_excluded, '{}')))
  ), islands AS (
    SELECT f.zone_index, f.row_index, f.run, f.island, min(f.ord) AS lo, max(f.ord) AS hi, max(f.row_seats) AS row_seats
      FROM free AS f
     GROUP BY f.zone_index, f.row_index, f.run, f.island
  ), block AS (
    SELECT g.zone_index, g.row_index, a.first
      FROM islands AS g
      CROSS JOIN LATERAL generate_series(g.lo, g.hi - p_quantity + 1) AS a(first)
     ORDER BY (a.first - g.lo = 1 OR g.hi - (a.first + p_quantity - 1) = 1),
              g.zone_index, g.row_index, abs((a.first + (p_quantity - 1) / 2.0) - (g.row_seats - 1) / 2.0), a.first
     LIMIT 1
  )
  SELECT CASE
           WHEN EXISTS (SELECT 1 FROM block) THEN
             (SELECT array_agg(f.seat_id ORDER BY f.ord)
                FROM free AS f
                JOIN block AS b ON f.zone_index = b.zone_index AND f.row_index = b.row_index AND f.ord BETWEEN b.first AND b.first + p_quantity - 1)
           WHEN NOT p_together AND (SELECT count(*) FROM free) >= p_quantity THEN
             (SELECT array_agg(x.seat_id)
                FROM (SELECT f.seat_id FROM free AS f
                       ORDER BY f.zone_index, f.row_index, abs(f.ord - (f.row_seats - 1) / 2.0), f.ord
                       LIMIT p_quantity) AS x)
         END,
         (SELECT coalesce(max(g.hi - g.lo + 1), 0)::integer FROM islands AS g)
$$;
