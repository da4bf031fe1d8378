-- A group of holds (or of sales) of one seller's inventories, decided in one statement: each take
-- of p_takes, in arrival order, by take_tickets.sql itself (the one sale rule: nothing here judges
-- anything), so that each is answered exactly as it would have been alone, after the ones before
-- it. A group turns as many waits for the inventories' locks into one: the first take locks them,
-- the others find them held by their own transaction. Each take is a JSON object of take_tickets'
-- arguments: b (basket), ids, q (quantities), scope, prices, variants, opening, seats (its p_seats,
-- or null), and, for a hold, items ([{i: inventory, v: variant, q: quantity, p: position}]: the
-- new basket's items, written here, just before the take, so that the takes before it do not
-- count them as held).
-- A bounded statement: once it has run p_budget_ms (measured from the statement's start, as the
-- statement timeout is, lock waits included), it attempts no further take. The first take is
-- always attempted, so a group costs at most its budget and one take, whatever a take costs, and
-- a budget far under the statement timeout keeps every group far from it. The takes not
-- attempted are put off: for holds, answered `deferred` (their basket rows, written by the
-- caller, are deleted at the end, as a refused one's), for the caller to send in its next
-- transaction, in the same order; for sales, raised as SQLSTATE BX504 with, in DETAIL, the place
-- of the first take put off (the whole group rolls back: its orders were written before it, see
-- below), for the caller to send again in two parts, the takes before that place and the rest.
-- A hold (p_sell false) is atomic per take: its items and its take run in a subtransaction; a take
-- refused (SQLSTATE BX409) leaves nothing (its basket row is deleted at the end) and answers its
-- refusal, the BX409 DETAIL (take_tickets.sql), as `refusal`; the others go on. A sale (p_sell
-- true) is all or nothing: the orders were written before it, in the same transaction, so a
-- refused take raises take_tickets' own BX409, the whole group rolls back and its caller sells
-- each basket alone. Any other error rolls the whole group back, hold or sale.
-- Answers one row per take: n (its place in p_takes, from 1), taken (take_tickets' rows as JSON,
-- or null when refused or put off), refusal (or null), deferred (true when not attempted).
CREATE OR REPLACE FUNCTION take_tickets_group(p_seller uuid, p_takes jsonb, p_sell boolean, p_budget_ms integer)
RETURNS TABLE (n integer, taken jsonb, refusal text, deferred boolean)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  t record;
  basket uuid;
  budget constant interval := make_interval(secs => p_budget_ms / 1000.0);
  dropped uuid[] := '{}';
BEGIN
  deferred := false;
  FOR t IN SELECT o.x, o.k::integer AS k FROM jsonb_array_elements(p_takes) WITH ORDINALITY AS o(x, k) ORDER BY o.k LOOP
    n := t.k;
    basket := (t.x->>'b')::uuid;
    refusal := NULL;
    taken := NULL;
    IF NOT deferred AND t.k > 1 AND clock_timestamp() - statement_timestamp() >= budget THEN
      IF p_sell THEN
        RAISE EXCEPTION 'the group spent its budget' USING ERRCODE = 'BX504', DETAIL = t.k::text;
      END IF;
      deferred := true;
    END IF;
    IF deferred THEN
      dropped := dropped || basket;
    ELSIF p_sell THEN
      taken := take_tickets_json(p_seller, t.x, true);
    ELSE
      BEGIN
        INSERT INTO basket_items (basket_id, inventory_id, variant, quantity, position)
          SELECT basket, w.i, w.v, w.q, w.p FROM jsonb_to_recordset(t.x->'items') AS w(i uuid, v text, q integer, p integer);
        taken := take_tickets_json(p_seller, t.x, false);
      EXCEPTION WHEN SQLSTATE 'BX409' THEN
        GET STACKED DIAGNOSTICS refusal = PG_EXCEPTION_DETAIL;
        taken := NULL;
        dropped := dropped || basket;
      END;
    END IF;
    RETURN NEXT;
  END LOOP;
  IF cardinality(dropped) > 0 THEN
    DELETE FROM baskets AS b WHERE b.id = ANY (dropped);
  END IF;
  RETURN;
END
$$;
