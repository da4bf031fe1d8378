-- sell_held_tickets (0009) was replaced by take_tickets (0010), the one statement that holds and
-- sells tickets (src/domain/inventory/take-tickets.ts); nothing calls it any more.
DROP FUNCTION IF EXISTS sell_held_tickets(uuid, uuid[], integer[], uuid);
