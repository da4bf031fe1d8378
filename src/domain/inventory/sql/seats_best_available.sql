-- The best available seats of a seated inventory for one hold (docs/seating.md): p_quantity adjacent
-- free seats in one row (seat_standings.sql: free for p_except, leaving out p_excluded, the seats
-- this same hold takes otherwise), a block that leaves no new orphan (a free seat with no free
-- neighbour: its side seats taken, blocked, missing, or past an aisle) before any that does; then
-- the lowest zone, then row, in the plan's order; then the block whose centre is nearest the
-- row's middle counted in seats; ties: the lower position. Free seats fall into islands (runs of
-- consecutive places in one row between aisles); a block starting one seat after its island's
-- start, or ending one before its end, strands that seat. Without such a block and with
-- p_together false: the best-ranked free seats anywhere (lowest zone and row, nearest the
-- middle). seats: null when nothing fits; max_together: the largest block left (of every row
-- when seats is null; of the rows read otherwise).
-- A hold costs what the seats it may take cost, not what the venue holds: it reads the rows that
-- still have a seat neither sold, blocked, held (a hashed set of seats_held) nor excluded (inventory_seats_open_idx, in the
-- plan's order) a few at a time, 2, then the next 4, 8, and so on, each row once, and stops at
-- the first block that leaves no orphan: rows rank before centres, so it is the best of all. A
-- block that strands a seat is kept from the first rows that have one, in case no later row has a
-- better one. Only with no block anywhere and p_together false are all the free seats read at
-- once, for the best-ranked ones. Each seat is judged by seat_standings, asked for the seats of the
-- rows read (p_only). LANGUAGE plpgsql, STABLE: read with the caller's snapshot (take_tickets.sql
-- asks it under the inventory's locks).
CREATE OR REPLACE FUNCTION seats_best_available(p_inventory uuid, p_except uuid, p_quantity integer, p_together boolean, p_excluded text[])
RETURNS TABLE (seats text[], max_together integer)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  excluded text[] := coalesce(p_excluded, '{}');
  rows_read integer := 2;
  last_row integer := -1;
  lo integer;
  hi integer;
  found_rows integer;
  picked text[];
  orphaning boolean;
  largest integer;
  stranding text[];
  only_seats text[];
BEGIN
  max_together := 0;
  LOOP
    SELECT min(x.r), max(x.r), count(*) INTO lo, hi, found_rows
      FROM (SELECT DISTINCT s.row_index AS r FROM inventory_seats AS s
             WHERE s.inventory_id = p_inventory AND s.ticket_id IS NULL AND NOT s.blocked AND s.row_index > last_row
               AND s.seat_id NOT IN (SELECT h.seat FROM seats_held(p_inventory, p_except) AS h) AND NOT (s.seat_id = ANY (excluded))
             ORDER BY 1 LIMIT rows_read) AS x;
    EXIT WHEN found_rows = 0;
    -- A variable, not a subquery in the call: seat_standings is then inlined into the statement.
    only_seats := ARRAY(SELECT o.seat_id FROM inventory_seats AS o
                         WHERE o.inventory_id = p_inventory AND o.ticket_id IS NULL AND NOT o.blocked AND o.row_index BETWEEN lo AND hi);
    WITH free AS (
      SELECT s.seat_id, s.zone_index, s.row_index, s.run, s.ord, s.row_seats,
             s.ord - row_number() OVER (PARTITION BY s.zone_index, s.row_index, s.run ORDER BY s.ord) AS island
        FROM seat_standings(p_inventory, p_except, only_seats) AS s
       WHERE s.status = 'free' AND NOT (s.seat_id = ANY (excluded))
    ), islands AS (
      SELECT f.zone_index, f.row_index, f.run, f.island, min(f.ord) AS lo, max(f.ord) AS hi, max(f.row_seats) AS row_seats
        FROM free AS f
       GROUP BY f.zone_index, f.row_index, f.run, f.island
    ), block AS (
      SELECT g.zone_index, g.row_index, a.first, (a.first - g.lo = 1 OR g.hi - (a.first + p_quantity - 1) = 1) AS orphaning
        FROM islands AS g
        CROSS JOIN LATERAL generate_series(g.lo, g.hi - p_quantity + 1) AS a(first)
       ORDER BY 4, g.zone_index, g.row_index, abs((a.first + (p_quantity - 1) / 2.0) - (g.row_seats - 1) / 2.0), a.first
       LIMIT 1
    )
    SELECT (SELECT array_agg(f.seat_id ORDER BY f.ord)
              FROM free AS f
              JOIN block AS b ON f.zone_index = b.zone_index AND f.row_index = b.row_index AND f.ord BETWEEN b.first AND b.first + p_quantity - 1),
           (SELECT b.orphaning FROM block AS b),
           (SELECT coalesce(max(g.hi - g.lo + 1), 0)::integer FROM islands AS g)
      INTO picked, orphaning, largest;
    max_together := greatest(max_together, largest);
    IF picked IS NOT NULL AND NOT orphaning THEN
      seats := picked;
      RETURN NEXT;
      RETURN;
    END IF;
    stranding := coalesce(stranding, picked);
    EXIT WHEN found_rows < rows_read;
    last_row := hi;
    rows_read := rows_read * 2;
  END LOOP;
  -- No block leaves every seat a neighbour: the best that strands one (max_together: the largest
  -- block of every row, all read). No block at all: with p_together false, the best-ranked free
  -- seats anywhere.
  seats := stranding;
  IF seats IS NULL AND NOT p_together THEN
    SELECT CASE WHEN count(*) >= p_quantity THEN (array_agg(x.seat_id ORDER BY x.k))[1:p_quantity] END INTO seats
      FROM (SELECT s.seat_id, row_number() OVER (ORDER BY s.zone_index, s.row_index, abs(s.ord - (s.row_seats - 1) / 2.0), s.ord) AS k
              FROM seat_standings(p_inventory, p_except, null) AS s
             WHERE s.status = 'free' AND NOT (s.seat_id = ANY (excluded))) AS x;
  END IF;
  RETURN NEXT;
END
$$;
