-- Queues a turn (waiting_list_turns) for each of these inventories that has buyers waiting, so that
-- a worker of any process serves it soon (serve_waiting_list.sql). Called where tickets come back
-- (announce_tickets_freed.sql: a cancellation, a void, a raised capacity, a hold ended early) and
-- where a queue changes (an entry leaves, declines or is moved ahead). A nudge while a turn of the
-- inventory waits unleased adds nothing; one while a turn is being served adds the next. Checked
-- against committed turns, never through a unique index: a nudge must not wait for a transaction
-- that serves (it may be waiting for the nudger's entry lock). Two nudges at once may add two
-- turns: the second serves nothing.
CREATE OR REPLACE FUNCTION waiting_list_nudge(p_inventories uuid[]) RETURNS void
LANGUAGE sql VOLATILE AS $$
  INSERT INTO waiting_list_turns (inventory_id)
  SELECT DISTINCT w.inventory_id FROM waiting_entries w
   WHERE w.inventory_id = ANY (p_inventories) AND w.status = 'waiting'
     AND NOT EXISTS (SELECT 1 FROM waiting_list_turns t WHERE t.inventory_id = w.inventory_id AND t.status = 'pending' AND t.locked_until IS NULL)
$$;
