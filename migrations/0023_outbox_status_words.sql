-- Emails take the webhook deliveries' status words, so that every outbox row says the same:
-- pending, delivered, failed (src/platform/outbox/lease.ts OUTBOX_STATUSES).
UPDATE "outbox_emails" SET "status" = 'delivered' WHERE "status" = 'sent';--> statement-breakpoint
UPDATE "outbox_emails" SET "status" = 'failed' WHERE "status" = 'dead';
