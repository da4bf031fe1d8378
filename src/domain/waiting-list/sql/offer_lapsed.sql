-- The one definition of "an offer has run out": its offer_expires_at is reached, by the database's
-- clock. The sweep that finds offers due (waiting-list.repo.ts), the turn that expires them
-- (serve_waiting_list.sql) and an answer to an offer (accept, decline) all ask it. LANGUAGE sql,
-- STABLE, a single expression: the planner inlines it into the calling statement, so a query on
-- offer_expires_at still uses its index.
CREATE OR REPLACE FUNCTION offer_lapsed(p_offer_expires_at timestamptz)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT p_offer_expires_at <= now()
$$;
