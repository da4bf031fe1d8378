-- A group of holds (or of sales) of one seller's inventories, decided in one statement: each take
-- of p_takes, in arrival order, by take_tickets.sql itself (the one sale rule: nothing here judges
-- anything), so that each is answered exactly as it would have been alone, after the ones before
-- it. A group turns as many waits for the inventories' locks into one: the first take locks them,
-- the others find them held by their own transaction. Each take is a JSON object of take_tickets'
-- arguments: b (basket), ids, q (quantities), scope, prices, variants, opening, seats (its p_seats,
-- or null), and, for a hold, items ([{i: inventory, v: variant, q: quantity, p: position}]: the
-- new basket's items, written here, just before the take, so that the takes before it do not
-- count them as held).
-- A hold (p_sell false) is atomic per take: its items and its take run in a subtransaction; a take
-- refused (SQLSTATE BX409) leaves nothing (its basket row, written by the caller, is deleted at the
-- end) and answers its refusal, the BX409 DETAIL (take_tickets.sql), as `refusal`; the others go
-- on. A sale (p_sell true) is all or nothing: the orders were written before it, in the same
-- transaction, so a refused take raises take_tickets' own BX409, the whole group rolls back and
-- its caller sells each basket alone. Any other error rolls the whole group back, hold or sale.
-- Answers one row per take: n (its place in p_takes, from 1), taken (take_tickets' rows as JSON,
-- or null when refused), refusal (or null).
CREATE OR REPLACE FUNCTION take_tickets_group(p_seller uuid, p_takes jsonb, p_sell boolean)
RETURNS TABLE (n integer, taken jsonb, refusal text)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  t record;
  basket uuid;
  refused uuid[] := '{}';
BEGIN
  FOR t IN SELECT o.x, o.k::integer AS k FROM jsonb_array_elements(p_takes) WITH ORDINALITY AS o(x, k) ORDER BY o.k LOOP
    n := t.k;
    basket := (t.x->>'b')::uuid;
    refusal := NULL;
    IF p_sell THEN
      taken := take_tickets_json(p_seller, t.x, true);
    ELSE
      BEGIN
        INSERT INTO basket_items (basket_id, inventory_id, variant, quantity, position)
          SELECT basket, w.i, w.v, w.q, w.p FROM jsonb_to_recordset(t.x->'items') AS w(i uuid, v text, q integer, p integer);
        taken := take_tickets_json(p_seller, t.x, false);
      EXCEPTION WHEN SQLSTATE 'BX409' THEN
        GET STACKED DIAGNOSTICS refusal = PG_EXCEPTION_DETAIL;
        taken := NULL;
        refused := refused || basket;
      END;
    END IF;
    RETURN NEXT;
  END LOOP;
  IF cardinality(refused) > 0 THEN
    DELETE FROM baskets AS b WHERE b.id = ANY (refused);
  END IF;
  RETURN;
END
$$;
