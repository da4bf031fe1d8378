-- Whether buyers queue for an inventory's tickets: an entry of its waiting list is `waiting`. While
-- they do, its free tickets go to them first and are sold to no one else (sale_standing.sql). An
-- offered entry no longer queues: its tickets are held by its offer's basket. LANGUAGE sql,
-- STABLE: inlined into the calling statement (inventory_standings.sql) as one index probe.
CREATE OR REPLACE FUNCTION tickets_queued(p_inventory uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM waiting_entries w WHERE w.inventory_id = p_inventory AND w.status = 'waiting')
$$;
