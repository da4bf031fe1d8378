-- take_tickets_group gains p_budget_ms (a group's statement attempts no further take once it has
-- run that long) and answers `deferred`: a new signature, so the old one goes first
-- (src/domain/inventory/sql/take_tickets_group.sql puts it back).
DROP FUNCTION IF EXISTS take_tickets_group(uuid, jsonb, boolean);
