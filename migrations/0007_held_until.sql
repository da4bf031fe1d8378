ALTER TABLE "basket_items" ADD COLUMN "held_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "basket_items_held_idx" ON "basket_items" USING btree ("inventory_id","held_until") WHERE "basket_items"."held_until" is not null;--> statement-breakpoint
UPDATE "basket_items" SET "held_until" = b."expires_at" FROM "baskets" b WHERE b."id" = "basket_items"."basket_id" AND b."status" = 'open';--> statement-breakpoint
-- An item holds its tickets until its basket expires, while the basket is open.
CREATE FUNCTION basket_items_set_held_until() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.held_until := (SELECT CASE WHEN b.status = 'open' THEN b.expires_at END FROM baskets b WHERE b.id = NEW.basket_id);
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER basket_items_held_until BEFORE INSERT OR UPDATE OF basket_id ON "basket_items"
  FOR EACH ROW EXECUTE FUNCTION basket_items_set_held_until();--> statement-breakpoint
-- A basket renewed, checked out or expired moves its items' hold with it, in the same transaction.
CREATE FUNCTION baskets_move_holds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE basket_items SET held_until = CASE WHEN NEW.status = 'open' THEN NEW.expires_at END WHERE basket_id = NEW.id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER baskets_move_holds AFTER UPDATE OF status, expires_at ON "baskets"
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.expires_at IS DISTINCT FROM NEW.expires_at)
  EXECUTE FUNCTION baskets_move_holds();
