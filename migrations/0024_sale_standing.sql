-- take_tickets answers how each inventory stands (src/domain/inventory/sql/take_tickets.sql, from
-- inventory_standings.sql): its result changed, so its old signature goes before the function
-- files are applied; lock_inventories_with_held is folded into it.
DROP FUNCTION IF EXISTS take_tickets(uuid, uuid[], integer[], uuid, uuid[], integer[], text[], boolean);--> statement-breakpoint
DROP FUNCTION IF EXISTS lock_inventories_with_held(uuid, uuid[], uuid);
