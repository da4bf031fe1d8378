-- Serves the waiting list of one inventory, under the locks every hold and sale takes
-- (waiting_list_lock.sql): whoever serves at once, from any process, serves after the other, so
-- no ticket is offered twice.
--   1. Offers past offer_expires_at expire: the entry is `expired` and its basket's hold ends. Once
--      the inventory's date has passed, the entries still waiting expire too.
--   2. While the event is on sale and the date has not passed (the sale rule, inventory_standings.sql),
--      the free tickets (its `available`: offers are holds) go to the queue strictly in order (priority,
--      higher first, then created_at): an entry is offered only when it and every entry before it
--      fit, so nobody behind the head is served while the head waits for enough tickets. At most
--      p_limit offers a call, so the locks are never held long.
-- With p_entry, only that entry is offered, out of turn (the back office's offer): 'short' when
-- too few tickets are free for it.
-- An offer is a basket of the entry's affiliate and customer (if any) holding the entry's quantity and variant
-- until offer_expires_at (the seller's waiting_list_offer_minutes); on a seated inventory it holds
-- that many best-available seats (seats_best_available.sql, together when a block is left, else the
-- best anywhere), so that the seats held agree with the count. Answers each entry changed and
-- what became of it ('expired', 'offered' or 'short'); the caller mints the offers' tokens, emails and
-- webhook events in the same transaction.
CREATE OR REPLACE FUNCTION serve_waiting_list(p_inventory uuid, p_limit integer, p_entry uuid)
RETURNS TABLE (entry_id uuid, outcome text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  inv record;
  w record;
  free integer;
  verdict text;
  offer_until timestamptz;
  basket uuid;
  seats text[];
BEGIN
  PERFORM waiting_list_lock(p_inventory);
  SELECT i.id, i.seller_id, i.variants, i.seating_plan_id IS NOT NULL AS seated, s.waiting_list_offer_minutes AS minutes
    INTO inv
    FROM inventories i JOIN sellers s ON s.id = i.seller_id
   WHERE i.id = p_inventory;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  -- An offer being answered right now (its entry locked by an accept or a decline, which then
  -- takes these same inventory locks) is skipped, not waited for: the answer decides it.
  FOR w IN
    UPDATE waiting_entries x SET status = 'expired', updated_at = now()
     WHERE x.id IN (SELECT y.id FROM waiting_entries y
                     WHERE y.inventory_id = p_inventory AND y.status = 'offered' AND offer_lapsed(y.offer_expires_at)
                       FOR UPDATE SKIP LOCKED)
    RETURNING x.id, x.basket_id
  LOOP
    PERFORM end_offer_hold(w.basket_id);
    entry_id := w.id; outcome := 'expired';
    RETURN NEXT;
  END LOOP;

  -- The sale rule (inventory_standings.sql) says whether the event sells on that date: 'sold_out'
  -- (as it stands to the public while buyers queue) and 'on_sale' do; and what is free.
  SELECT st.standing, st.available INTO verdict, free
    FROM inventory_standings(inv.seller_id, ARRAY[p_inventory], null, null, null, false) AS st;
  IF verdict = 'past' THEN
    -- The date has passed: nobody will be served any more, and the sweep stops looking.
    RETURN QUERY
      UPDATE waiting_entries x SET status = 'expired', updated_at = now()
       WHERE x.inventory_id = p_inventory AND x.status = 'waiting'
      RETURNING x.id, 'expired'::text;
    RETURN;
  END IF;
  IF verdict NOT IN ('on_sale', 'sold_out') THEN
    RETURN;
  END IF;
  offer_until := now() + make_interval(mins => inv.minutes);
  FOR w IN
    SELECT x.id, x.affiliate_id, x.customer_id, x.variant, x.quantity
      FROM waiting_entries x
     WHERE x.inventory_id = p_inventory AND x.status = 'waiting' AND (p_entry IS NULL OR x.id = p_entry)
     ORDER BY x.priority DESC, x.created_at, x.id
     LIMIT p_limit
       FOR UPDATE OF x
  LOOP
    -- The seats, read after the offers made before this one in the loop (each statement here
    -- sees the ones before it): as many as the count, since blocked seats are not counted free.
    seats := null;
    IF inv.seated AND w.quantity <= free THEN
      SELECT b.seats INTO seats FROM seats_best_available(p_inventory, null, w.quantity, false, null) AS b;
    END IF;
    IF w.quantity > free OR (inv.seated AND seats IS NULL) THEN
      IF p_entry IS NOT NULL THEN
        entry_id := w.id; outcome := 'short';
        RETURN NEXT;
      END IF;
      EXIT;
    END IF;
    -- The entry's affiliate while it is active (a deactivated one's code addresses nothing), and
    -- its variant while the inventory still sells it (else the inventory itself).
    INSERT INTO baskets (seller_id, affiliate_id, customer_id, status, expires_at)
    VALUES (inv.seller_id, (SELECT a.id FROM affiliates a WHERE a.id = w.affiliate_id AND a.active), w.customer_id, 'open', offer_until)
    RETURNING id INTO basket;
    INSERT INTO basket_items (basket_id, inventory_id, variant, quantity, seats)
    VALUES (basket, p_inventory,
            CASE WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(inv.variants) AS v WHERE v ->> 'name' = w.variant) THEN w.variant END,
            w.quantity, seats);
    UPDATE waiting_entries x SET status = 'offered', basket_id = basket, offered_at = now(), offer_expires_at = offer_until, updated_at = now()
     WHERE x.id = w.id;
    free := free - w.quantity;
    entry_id := w.id; outcome := 'offered';
    RETURN NEXT;
  END LOOP;
  -- The queue may have emptied, which puts what is left back on public sale: memories of a
  -- sold-out reading (sql/announce_tickets_freed.sql) forget it at commit.
  IF free > 0 AND NOT (SELECT q.queued FROM tickets_queued(p_inventory) AS q) THEN
    PERFORM pg_notify('tickets_freed', p_inventory::text);
  END IF;
  RETURN;
END
$$;
