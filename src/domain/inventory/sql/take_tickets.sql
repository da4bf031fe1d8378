-- The hold or the sale: first waits its turn for each inventory asked for, in one queue per
-- inventory (a transaction-scoped advisory lock, class 7301, keyed by the hash of its id, taken in
-- key order): a lock queue wakes one waiter at each commit, where the waiters of a row lock all
-- wake and all but one wait again, which costs more the more transactions wait (the flash sale
-- sold 3 to 4 times fewer tickets a second with 80 connections than with 10). Then it locks the
-- seller's inventories (in id order, NO KEY UPDATE, so two transactions wanting the same rows
-- queue instead of deadlocking, while rows that merely reference them may still be written;
-- those references are checked at commit, under these locks: migration 0025), reads how each stands (inventory_standings.sql, the
-- one sale rule) AFTER the locks are granted: each statement of a VOLATILE function takes a fresh
-- snapshot, so it sees every hold and sale committed by whoever held the locks before. The tickets
-- may be taken when every inventory asked for is the seller's and fits (on sale to the caller,
-- p_scope, with p_quantities[n] left besides the holds of other baskets than p_basket) and, when
-- the caller priced with them, its unit price (p_prices) and variants (p_variants[n]: md5 of the
-- variants' jsonb text as read, or null where no item buys a variant) have not moved. Otherwise it
-- raises SQLSTATE BX409 with, in DETAIL, how each stood (JSON: id, date, standing, ticketsLeft,
-- fits, moved, firstReleaseMs) and changes nothing. p_opening: p_basket is being opened by this
-- transaction (its items, written before the locks, are what it asks for: it holds nothing yet). When they fit, with p_sell it adds the quantities to
-- sold, and it answers each inventory as a new basket would now find it (standing and tickets_left
-- after this change). A change of its arguments or result needs a migration that drops the old
-- signature first (CREATE OR REPLACE cannot change them). plan_cache_mode = force_generic_plan:
-- each connection plans the function's statements once. Left to choose, PostgreSQL planned the
-- reading of the standings (the sale rule inlined: 4 to 9 ms a plan) 5 times per connection before
-- it kept a generic plan, and the locking statement at every call: with 80 connections opened for
-- a flash sale, seconds of the database's CPU while the tickets sold.
-- Seats (docs/seating.md): on a seated inventory, once its count fits, the seats are decided under the
-- same locks, by seat_standings.sql (the one sale rule for a seat), for each entry of p_seats
-- (JSON array of {i: inventory, v: variant or null, q: quantity, s: seat ids or null, t: together,
-- k: keep}): k, seats the basket already holds (a renewal or a checkout): each must still be its
-- to take (not held by another unexpired basket, not blocked, not sold but to this basket's own
-- order); s, named seats: each must be the inventory's (else 'unknown') and free or the basket's
-- own (else 'unavailable'; while buyers queue for the inventory, tickets_queued.sql, its free
-- seats are theirs: 'unavailable' too), and with the seller's seating_no_orphans the seats named
-- and kept, judged all at once whatever the entries' order, strand nobody (seats_stranded.sql);
-- no s: best available (seats_best_available.sql), where every such entry of the inventory is one
-- party: one pick of their summed quantity, together unless none of them asks it (t), dealt along
-- the block to the entries in their order. Fixed seats are judged before the party's pick, and no
-- seat goes to two entries. p_seats null: the
-- basket's stored items are the entries (their seats kept, or picked anywhere when it has none:
-- a waiting list's offer). A refusal adds to the inventory's DETAIL entry `seats: {unknown,
-- unavailable, stranded, maxTogether}` (or `{unseated: true}`: seats named on an unseated one). Seats picked or named are written to the basket's items
-- (those that exist: a basket being changed writes its new items afterwards, from `seats` in the
-- answer: [{v, s: [Seat]}] per seated inventory, Seat as the API writes it).
CREATE OR REPLACE FUNCTION take_tickets(p_seller uuid, p_ids uuid[], p_quantities integer[], p_basket uuid, p_scope uuid[], p_prices integer[], p_variants text[], p_sell boolean, p_opening boolean, p_seats jsonb)
RETURNS TABLE (id uuid, event_id uuid, date text, name text, price integer, standing text, tickets_left integer, first_release_ms double precision, seats jsonb)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  r record;
  e record;
  taken boolean := true;
  found_rows integer := 0;
  seen jsonb := '[]'::jsonb;
  k integer;
  seated uuid[];
  seated_plans uuid[];
  no_orphans boolean;
  excluded text[];
  chosen text[];
  bad_unknown text[];
  bad_unavailable text[];
  bad_stranded text[];
  most_together integer;
  named_unknown text[];
  named_taken text[];
  seat_verdict jsonb;
  writes jsonb := '[]'::jsonb;
  plan uuid;
  seat_count integer;
  party_v text[];
  party_q integer[];
  party_together boolean;
  naming boolean;
  dealt integer;
  part text[];
  m integer;
BEGIN
  PERFORM pg_advisory_xact_lock(7301, q.k) FROM (SELECT DISTINCT hashtext(x::text) AS k FROM unnest(p_ids) AS x ORDER BY 1) AS q;
  -- Locked, and which of them sell seats (and of which plan), in one statement.
  SELECT coalesce(array_agg(l.id) FILTER (WHERE l.seating_plan_id IS NOT NULL), '{}'),
         coalesce(array_agg(l.seating_plan_id) FILTER (WHERE l.seating_plan_id IS NOT NULL), '{}')
    INTO seated, seated_plans
    FROM (SELECT i.id, i.seating_plan_id FROM inventories i WHERE i.id = ANY (p_ids) AND i.seller_id = p_seller ORDER BY i.id FOR NO KEY UPDATE OF i) AS l;
  FOR r IN
    SELECT s.*, p_quantities[n.n] AS quantity,
           (p_prices IS NOT NULL AND s.price IS DISTINCT FROM p_prices[n.n])
           OR (p_variants IS NOT NULL AND p_variants[n.n] IS NOT NULL
               AND p_variants[n.n] IS DISTINCT FROM (SELECT md5(i.variants::text) FROM inventories i WHERE i.id = s.id)) AS moved
      FROM inventory_standings(p_seller, p_ids, p_quantities, p_basket, p_scope, NOT p_opening) AS s
      CROSS JOIN LATERAL (SELECT array_position(p_ids, s.id) AS n) AS n
  LOOP
    found_rows := found_rows + 1;
    IF NOT r.fits OR r.moved THEN
      taken := false;
    END IF;
    seats := NULL;
    seat_verdict := NULL;
    IF r.id = ANY (seated) AND r.standing NOT IN ('hidden', 'past', 'not_on_sale') THEN
      seats := '[]'::jsonb;
      excluded := '{}';
      seat_count := 0;
      bad_unknown := '{}'; bad_unavailable := '{}'; bad_stranded := '{}'; most_together := NULL;
      plan := seated_plans[array_position(seated, r.id)];
      party_v := '{}'; party_q := '{}'; party_together := false; naming := false;
      FOR e IN
        SELECT x.v, x.q, x.s, x.t, x.k
          FROM (SELECT d->>'v' AS v, (d->>'q')::integer AS q,
                       CASE WHEN jsonb_typeof(d->'s') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(d->'s')) END AS s,
                       coalesce((d->>'t')::boolean, true) AS t, coalesce((d->>'k')::boolean, false) AS k, o.n
                  FROM jsonb_array_elements(p_seats) WITH ORDINALITY AS o(d, n)
                 WHERE p_seats IS NOT NULL AND (d->>'i')::uuid = r.id
                UNION ALL
                SELECT bi.variant, bi.quantity, bi.seats, false, bi.seats IS NOT NULL, bi.position
                  FROM basket_items bi
                 WHERE p_seats IS NULL AND bi.basket_id = p_basket AND bi.inventory_id = r.id) AS x
         ORDER BY x.n
      LOOP
        IF e.s IS NULL THEN
          -- Best available: one party with the other such entries, picked after every fixed seat.
          party_v := array_append(party_v, e.v);
          party_q := array_append(party_q, e.q);
          party_together := party_together OR e.t;
          CONTINUE;
        END IF;
        IF e.k THEN
          -- Seats the basket holds: still its own to keep, or (a checkout) to sell.
          bad_unavailable := bad_unavailable || ARRAY(
            SELECT w.seat FROM unnest(e.s) AS w(seat)
              LEFT JOIN seat_standings(r.id, p_basket, e.s) AS st ON st.seat_id = w.seat
              LEFT JOIN tickets t ON t.id = st.ticket_id
              LEFT JOIN orders o ON o.id = t.order_id
             WHERE st.seat_id IS NULL OR st.status IN ('held', 'blocked') OR w.seat = ANY (excluded)
                OR (st.status = 'sold' AND o.basket_id IS DISTINCT FROM p_basket));
        ELSE
          -- Named: free, or already this basket's own; while buyers queue (r.queued) a free seat is
          -- theirs (reserved), and only the basket's own seats may be named.
          SELECT coalesce(array_agg(w.seat) FILTER (WHERE st.seat_id IS NULL), '{}'),
                 coalesce(array_agg(w.seat) FILTER (WHERE w.seat = ANY (excluded)
                                                       OR (st.status = 'free' AND r.queued)
                                                       OR (st.status NOT IN ('free', 'held'))
                                                       OR (st.status = 'held' AND st.basket_id IS DISTINCT FROM p_basket)), '{}')
            INTO named_unknown, named_taken
            FROM unnest(e.s) AS w(seat) LEFT JOIN seat_standings(r.id, NULL, e.s) AS st ON st.seat_id = w.seat;
          bad_unknown := bad_unknown || named_unknown;
          bad_unavailable := bad_unavailable || named_taken;
          naming := true;
        END IF;
        excluded := excluded || e.s;
        seat_count := seat_count + coalesce(e.q, 0);
        seats := seats || jsonb_build_array(jsonb_build_object('v', e.v, 's', seats_json(plan, e.s)));
        IF NOT e.k THEN
          writes := writes || jsonb_build_array(jsonb_build_object('i', r.id, 'v', e.v, 'q', cardinality(e.s), 's', to_jsonb(e.s)));
        END IF;
      END LOOP;
      -- Every seat named or kept (excluded, until the party's pick), judged at once: a seat this
      -- basket takes is never stranded. The seller's setting is read only when seats are named.
      IF naming AND cardinality(bad_unknown) = 0 AND cardinality(bad_unavailable) = 0 THEN
        SELECT sl.seating_no_orphans INTO no_orphans FROM sellers sl WHERE sl.id = p_seller;
        IF no_orphans THEN
          bad_stranded := seats_stranded(r.id, p_basket, excluded, '{}');
        END IF;
      END IF;
      -- The party: one block of its summed quantity, dealt to its entries in the request's order.
      -- Too few tickets left for the count (r.fits): refused insufficient_inventory whatever the
      -- seats, so none are picked, and a rush on a sold-out inventory reads none of its rows.
      IF cardinality(party_q) > 0 THEN
        chosen := NULL;
        IF r.fits THEN
          SELECT b.seats, b.max_together INTO chosen, most_together
            FROM seats_best_available(r.id, p_basket, (SELECT sum(x)::integer FROM unnest(party_q) AS x), party_together, excluded) AS b;
        END IF;
        IF chosen IS NULL AND r.fits THEN
          taken := false;
          seat_verdict := coalesce(seat_verdict, '{}'::jsonb) || jsonb_build_object('maxTogether', most_together);
        END IF;
        dealt := 0;
        FOR m IN 1 .. cardinality(party_q) LOOP
          part := CASE WHEN chosen IS NULL THEN '{}'::text[] ELSE chosen[dealt + 1 : dealt + party_q[m]] END;
          dealt := dealt + party_q[m];
          excluded := excluded || part;
          seat_count := seat_count + coalesce(party_q[m], 0);
          seats := seats || jsonb_build_array(jsonb_build_object('v', party_v[m], 's', seats_json(plan, part)));
          -- Kept entries name their seats: a party's are all new, each written to its item.
          writes := writes || jsonb_build_array(jsonb_build_object('i', r.id, 'v', party_v[m], 'q', cardinality(part), 's', to_jsonb(part)));
        END LOOP;
      END IF;
      -- Every ticket of a seated inventory has its seat: entries that do not cover the quantity are a caller's bug.
      IF seat_count <> r.quantity THEN
        RAISE EXCEPTION 'the seats of inventory % cover % of its % tickets', r.id, seat_count, r.quantity;
      END IF;
      IF cardinality(bad_unknown) > 0 OR cardinality(bad_unavailable) > 0 OR cardinality(bad_stranded) > 0 THEN
        taken := false;
        seat_verdict := coalesce(seat_verdict, '{}'::jsonb)
          || jsonb_build_object('unknown', to_jsonb(bad_unknown), 'unavailable', to_jsonb(bad_unavailable), 'stranded', to_jsonb(bad_stranded));
      END IF;
    ELSIF p_seats IS NOT NULL AND NOT (r.id = ANY (seated))
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_seats) AS d WHERE (d->>'i')::uuid = r.id AND jsonb_typeof(d->'s') = 'array') THEN
      -- Seats named on an inventory that sells none.
      taken := false;
      seat_verdict := jsonb_build_object('unseated', true);
    END IF;
    seen := seen || jsonb_build_object('id', r.id, 'date', r.date, 'standing', r.standing, 'ticketsLeft', r.tickets_left, 'fits', r.fits,
                                       'moved', r.moved, 'firstReleaseMs', r.first_release_ms, 'seats', seat_verdict);
    id := r.id; event_id := r.event_id; date := r.date; name := r.name; price := r.price; first_release_ms := r.first_release_ms;
    SELECT a.standing, a.tickets_left INTO standing, tickets_left
      FROM sale_standing(true, r.event_status, r.past, r.available - r.quantity, r.queued, 0) AS a;
    RETURN NEXT;
  END LOOP;
  IF NOT taken OR found_rows <> cardinality(p_ids) THEN
    RAISE EXCEPTION 'the tickets asked for do not fit' USING ERRCODE = 'BX409', DETAIL = seen::text;
  END IF;
  -- The seats named or picked, onto the basket's items that exist (their quantity with them).
  IF jsonb_array_length(writes) > 0 THEN
    UPDATE basket_items AS bi SET quantity = (w->>'q')::integer, seats = ARRAY(SELECT jsonb_array_elements_text(w->'s'))
      FROM jsonb_array_elements(writes) AS w
     WHERE bi.basket_id = p_basket AND bi.inventory_id = (w->>'i')::uuid AND bi.variant IS NOT DISTINCT FROM (w->>'v');
  END IF;
  IF p_sell THEN
    -- One row at a time, each by its key: planned once per session. A join to unnest() (or
    -- `= ANY`) was planned again at every sale, its generic plan guessing 10 rows or more.
    FOR k IN 1 .. cardinality(p_ids) LOOP
      UPDATE inventories AS inv SET sold = inv.sold + p_quantities[k], updated_at = now() WHERE inv.id = p_ids[k];
    END LOOP;
  END IF;
  RETURN;
END
$$;
