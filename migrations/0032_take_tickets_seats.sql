-- take_tickets gains p_seats (the seats of a hold) and answers each inventory's seats: a new
-- signature, so the old one goes first (src/domain/inventory/sql/take_tickets.sql puts it back).
DROP FUNCTION IF EXISTS take_tickets(uuid, uuid[], integer[], uuid, uuid[], integer[], text[], boolean, boolean);
