-- Whether buyers queue for an inventory's tickets: an entry of its waiting list is `waiting`. While
-- they do, its free tickets go to them first and are sold to no one else (sale_standing.sql). An
-- offered entry no longer queues: its tickets are held by its offer's basket. LANGUAGE sql,
-- STABLE, RETURNS TABLE, read in FROM (`CROSS JOIN LATERAL tickets_queued(i.id) AS q`): inlined
-- into the calling statement as one index probe. Not a scalar function: one whose body holds a
-- subquery is never inlined, and was parsed and planned again at every call (about 0.09 ms of the
-- database, several times per hold; migration 0027).
CREATE OR REPLACE FUNCTION tickets_queued(p_inventory uuid) RETURNS TABLE (queued boolean)
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM waiting_entries w WHERE w.inventory_id = p_inventory AND w.status = 'waiting')
$$;
