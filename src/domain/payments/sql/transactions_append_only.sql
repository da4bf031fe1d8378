-- Trigger transactions_append_only (BEFORE UPDATE OR DELETE ON transactions): the ledger is
-- append-only (docs/payments.md). A row that was wrong is answered by another row, never by changing or
-- removing one; whatever code runs, the database refuses it (SQLSTATE BX500). TRUNCATE, which
-- only resetting a whole database does, is not a row change.
CREATE OR REPLACE FUNCTION transactions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % of transaction % refused', TG_OP, OLD.id USING ERRCODE = 'BX500';
END
$$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER transactions_append_only BEFORE UPDATE OR DELETE ON transactions
  FOR EACH ROW EXECUTE FUNCTION transactions_append_only();
