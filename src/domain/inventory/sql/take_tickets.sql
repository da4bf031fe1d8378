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
CREATE OR REPLACE FUNCTION take_tickets(p_seller uuid, p_ids uuid[], p_quantities integer[], p_basket uuid, p_scope uuid[], p_prices integer[], p_variants text[], p_sell boolean, p_opening boolean)
RETURNS TABLE (id uuid, event_id uuid, date text, name text, price integer, standing text, tickets_left integer, first_release_ms double precision)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  r record;
  taken boolean := true;
  found_rows integer := 0;
  seen jsonb := '[]'::jsonb;
  k integer;
BEGIN
  PERFORM pg_advisory_xact_lock(7301, q.k) FROM (SELECT DISTINCT hashtext(x::text) AS k FROM unnest(p_ids) AS x ORDER BY 1) AS q;
  PERFORM 1 FROM inventories i WHERE i.id = ANY (p_ids) AND i.seller_id = p_seller ORDER BY i.id FOR NO KEY UPDATE OF i;
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
    seen := seen || jsonb_build_object('id', r.id, 'date', r.date, 'standing', r.standing, 'ticketsLeft', r.tickets_left, 'fits', r.fits,
                                       'moved', r.moved, 'firstReleaseMs', r.first_release_ms);
    id := r.id; event_id := r.event_id; date := r.date; name := r.name; price := r.price; first_release_ms := r.first_release_ms;
    SELECT a.standing, a.tickets_left INTO standing, tickets_left
      FROM sale_standing(true, r.event_status, r.past, r.available - r.quantity, r.queued, 0) AS a;
    RETURN NEXT;
  END LOOP;
  IF NOT taken OR found_rows <> cardinality(p_ids) THEN
    RAISE EXCEPTION 'the tickets asked for do not fit' USING ERRCODE = 'BX409', DETAIL = seen::text;
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
