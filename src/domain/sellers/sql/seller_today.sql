-- The seller's today: the date now in its time zone (the default zone when it has none). In
-- PL/pgSQL, not SQL: an SQL function that cannot be inlined (its body reads a table) is parsed
-- and planned again on every call from PL/pgSQL, which take_tickets makes on every hold and sale
-- (6 % of the database's CPU in a flash sale); a PL/pgSQL body's plan is kept for the session.
CREATE OR REPLACE FUNCTION seller_today(p_seller uuid) RETURNS date
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (now() AT TIME ZONE coalesce((SELECT s.timezone FROM sellers s WHERE s.id = p_seller), 'America/Sao_Paulo'))::date;
END
$$;
