-- The rows that refer to an inventory (basket items, order items, tickets) are checked against it
-- at commit instead of at insert: by then the transaction holds the inventory's row lock
-- (take_tickets), so the check takes no lock of its own. Checked at insert, each check took a
-- KEY SHARE lock on the inventory row while others held it, and every such lock on the one row a
-- flash sale sells from made PostgreSQL write a new multixact of all its current lockers, a cost
-- that grew with every transaction in flight. drizzle-kit's table definitions cannot say
-- DEFERRABLE: it is said here only.
ALTER TABLE "basket_items" ALTER CONSTRAINT "basket_items_inventory_id_inventories_id_fk" DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "order_items" ALTER CONSTRAINT "order_items_inventory_id_inventories_id_fk" DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "tickets" ALTER CONSTRAINT "tickets_inventory_id_inventories_id_fk" DEFERRABLE INITIALLY DEFERRED;
