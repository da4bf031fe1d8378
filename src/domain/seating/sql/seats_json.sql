-- Seats as the API writes them (docs/seating.md Seat: {id, zone, row, number, category}), in the order
-- given: p_seats, seat ids of plan p_plan. Null seats: null (an unseated item). The one place the
-- Seat's shape is written in SQL: the hold's answer (take_tickets.sql) and a basket's lines
-- (baskets.repo.ts) both ask it. LANGUAGE sql, STABLE: inlined into the calling statement.
CREATE OR REPLACE FUNCTION seats_json(p_plan uuid, p_seats text[])
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN p_seats IS NULL THEN NULL ELSE (
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', ps.seat_id, 'zone', ps.zone, 'row', ps.row, 'number', ps.number, 'category', ps.category)
                              ORDER BY w.n), '[]'::jsonb)
      FROM unnest(p_seats) WITH ORDINALITY AS w(seat, n)
      JOIN seating_plan_seats ps ON ps.plan_id = p_plan AND ps.seat_id = w.seat) END
$$;
