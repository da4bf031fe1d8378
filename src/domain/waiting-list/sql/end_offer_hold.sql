-- The one way an offer's hold ends (it ran out, or was declined or left): its basket, if still
-- open, expires, and the database then nudges the queue (announce_tickets_freed.sql). A basket the
-- buyer already took (accepted, checked out) stays as it is. serve_waiting_list.sql and
-- waiting-list.repo.ts (decline, leave) both call it.
CREATE OR REPLACE FUNCTION end_offer_hold(p_basket uuid)
RETURNS void
LANGUAGE sql AS $$
  UPDATE baskets SET status = 'expired', updated_at = now() WHERE id = p_basket AND status = 'open'
$$;
