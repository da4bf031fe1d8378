-- The one definition of "held": the tickets of an inventory held now by open, unexpired baskets
-- (an item holds until its held_until, its open basket's expiry, kept by the triggers of
-- basket_items_set_held_until.sql and baskets_move_holds.sql), other than p_except's; what p_except
-- itself has of it (own: a basket keeps what it holds while buyers queue, sale_standing.sql; read
-- whatever its held_until, since its caller has judged the basket already, and a checkout turns
-- the basket's hold into a sale before it takes the tickets); and the
-- milliseconds until the first hold of any basket (p_except's too) runs out, by the database's
-- clock (null: nothing held). available = capacity - sold - held. Every reader asks it: the locked
-- reading (take_tickets, through inventory_standings) and the unlocked ones (inventory.repo.ts,
-- held.ts, the catalogue). LANGUAGE sql, STABLE, not STRICT, RETURNS TABLE: the planner inlines
-- it into the calling statement like a subquery (no call per row, no plan per call), and it
-- reads with that statement's snapshot. Lock the inventory rows first to decide on it safely.
CREATE OR REPLACE FUNCTION tickets_held(p_inventory uuid, p_except uuid)
RETURNS TABLE (held integer, own integer, first_release_ms double precision)
LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(bi.quantity) FILTER (WHERE bi.basket_id IS DISTINCT FROM p_except), 0)::integer,
         (SELECT coalesce(sum(o.quantity), 0) FROM basket_items o WHERE o.basket_id = p_except AND o.inventory_id = p_inventory)::integer,
         (extract(epoch FROM min(bi.held_until) - now()) * 1000)::double precision
    FROM basket_items bi
   WHERE bi.inventory_id = p_inventory AND bi.held_until > now()
$$;
