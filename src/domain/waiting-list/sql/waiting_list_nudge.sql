-- Queues a turn (waiting_list_turns) for each of these inventories that has buyers waiting, so that
-- a worker of any process serves it soon (serve_waiting_list.sql). Called where tickets come back
-- (announce_tickets_freed.sql: a cancellation, a void, a raised capacity, a hold ended early) and
-- where a queue changes (an entry leaves, declines or is moved ahead). At most one pending turn not
-- yet leased per inventory: a nudge while one waits adds nothing, a nudge while one is being served
-- adds the next.
CREATE OR REPLACE FUNCTION waiting_list_nudge(p_inventories uuid[]) RETURNS void
LANGUAGE sql VOLATILE AS $$
  INSERT INTO waiting_list_turns (inventory_id)
  SELECT DISTINCT w.inventory_id FROM waiting_entries w
   WHERE w.inventory_id = ANY (p_inventories) AND w.status = 'waiting'
  ON CONFLICT (inventory_id) WHERE status = 'pending' AND locked_until IS NULL DO NOTHING
$$;
