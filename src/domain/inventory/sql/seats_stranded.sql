-- The seats that taking p_taking would strand: free seats of the inventory (seat_standings.sql:
-- free for p_except, leaving out p_excluded, the seats this same hold takes otherwise) that would
-- be orphans afterwards (no free neighbour on either side: taken, blocked, missing, or past an
-- aisle) and are not orphans now. The same notion of orphan as seats_best_available.sql, for named
-- seats: refused with 409 seat_orphan while the seller's seating_no_orphans is on. Only the rows
-- of p_taking can change (neighbours share a row), so only their seats neither sold nor blocked
-- are read (p_only of seat_standings). LANGUAGE sql, STABLE: read with the caller's snapshot
-- (take_tickets.sql asks it under the inventory's locks).
CREATE OR REPLACE FUNCTION seats_stranded(p_inventory uuid, p_except uuid, p_taking text[], p_excluded text[])
RETURNS text[]
LANGUAGE sql STABLE AS $$
  WITH free AS (
    SELECT s.seat_id, s.zone_index, s.row_index, s.run, s.ord, s.seat_id = ANY (p_taking) AS taking
      FROM seat_standings(p_inventory, p_except,
                          ARRAY(SELECT o.seat_id FROM inventory_seats AS o
                                 WHERE o.inventory_id = p_inventory AND o.ticket_id IS NULL AND NOT o.blocked
                                   AND o.row_index IN (SELECT t.row_index FROM inventory_seats AS t
                                                        WHERE t.inventory_id = p_inventory AND t.seat_id = ANY (p_taking)))) AS s
     WHERE s.status = 'free' AND NOT (s.seat_id = ANY (coalesce(p_excluded, '{}')))
  ), now_free AS (
    SELECT f.seat_id, f.ord, lag(f.ord) OVER w AS prev, lead(f.ord) OVER w AS next
      FROM free AS f
    WINDOW w AS (PARTITION BY f.zone_index, f.row_index, f.run ORDER BY f.ord)
  ), left_free AS (
    SELECT f.seat_id, f.ord, lag(f.ord) OVER w AS prev, lead(f.ord) OVER w AS next
      FROM free AS f
     WHERE NOT f.taking
    WINDOW w AS (PARTITION BY f.zone_index, f.row_index, f.run ORDER BY f.ord)
  )
  SELECT coalesce(array_agg(a.seat_id ORDER BY a.seat_id), '{}')
    FROM left_free AS a
    JOIN now_free AS b ON b.seat_id = a.seat_id
   WHERE a.prev IS DISTINCT FROM a.ord - 1 AND a.next IS DISTINCT FROM a.ord + 1
     AND (b.prev = b.ord - 1 OR b.next = b.ord + 1)
$$;
