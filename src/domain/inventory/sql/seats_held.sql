-- "Held" seat by seat (reserved seating, docs/seating.md): each seat of the inventory held now by an
-- open, unexpired basket other than p_except (its items' seats, basket_items.seats), with the
-- basket holding it (one, since a seat is held by one basket at a time: take_tickets.sql): the same items, by the same predicate, as tickets_held.sql counts, so a seat
-- is held exactly while the quantity that includes it is (test/unit/architecture.test.ts holds the
-- two predicates equal). Asked by seat_standings.sql. LANGUAGE sql, STABLE, RETURNS TABLE: inlined into the calling statement.
CREATE OR REPLACE FUNCTION seats_held(p_inventory uuid, p_except uuid)
RETURNS TABLE (seat text, basket_id uuid)
LANGUAGE sql STABLE AS $$
  SELECT u.seat, bi.basket_id
    FROM basket_items bi
    CROSS JOIN LATERAL unnest(bi.seats) AS u(seat)
   WHERE bi.inventory_id = p_inventory AND bi.held_until > now() AND bi.basket_id IS DISTINCT FROM p_except
$$;
