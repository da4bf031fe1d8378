DROP INDEX "transactions_seller_seq_idx";--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "transactions_seller_xid_idx" ON "transactions" USING btree ("seller_id","xid","seq");