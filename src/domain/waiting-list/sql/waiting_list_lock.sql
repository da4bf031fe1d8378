-- Takes, for this transaction, the locks under which everything that changes what an inventory
-- sells is decided, in the order every hold and sale takes them (take_tickets.sql): its queue, the
-- advisory lock class 7301 keyed by the hash of its id, then its row, NO KEY UPDATE. Whoever holds
-- them reads, in its next statement, every hold, sale and waiting entry committed before, and no
-- other hold, sale, serving or join of that inventory commits until this transaction ends. Serving
-- the list (serve_waiting_list.sql) and joining it (join-waiting-list.ts: a join is refused while a
-- ticket is on sale to the public) decide under them.
CREATE OR REPLACE FUNCTION waiting_list_lock(p_inventory uuid) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7301, hashtext(p_inventory::text));
  PERFORM 1 FROM inventories i WHERE i.id = p_inventory FOR NO KEY UPDATE OF i;
END
$$;
