-- The one definition of "available": the tickets of an inventory left to sell, capacity - sold -
-- held (held: tickets_held.sql), never below 0 (docs/selling.md); a seated inventory's capacity is
-- given less its blocked seats (inventories.seats_blocked), so that available counts free seats. Every reader asks it: the sale rule
-- (sale_standing.sql), the back office's counts (held.ts) and the catalogue's lowest price still
-- on sale (catalog.repo.ts). LANGUAGE sql, IMMUTABLE: the planner inlines it as the expression.
CREATE OR REPLACE FUNCTION tickets_available(p_capacity integer, p_sold integer, p_held integer) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT greatest(0, p_capacity - p_sold - p_held)
$$;
