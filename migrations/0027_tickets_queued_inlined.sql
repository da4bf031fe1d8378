-- tickets_queued.sql answers in a FROM clause (RETURNS TABLE), where the planner inlines it: the
-- scalar one was planned again at every call. CREATE OR REPLACE cannot change a result type, so
-- the old signature goes before the function files are applied.
DROP FUNCTION IF EXISTS tickets_queued(uuid);
