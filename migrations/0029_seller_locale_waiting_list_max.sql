ALTER TABLE "sellers" ADD COLUMN "waiting_list_max_quantity" integer DEFAULT 4 NOT NULL;--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "locale" text DEFAULT 'pt-BR' NOT NULL;