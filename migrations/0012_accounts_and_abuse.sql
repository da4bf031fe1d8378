CREATE TABLE "staff_known_addresses" (
	"user_id" uuid NOT NULL,
	"address_hash" text NOT NULL,
	"last_signed_in_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "staff_known_addresses_user_id_address_hash_pk" PRIMARY KEY("user_id","address_hash")
);
--> statement-breakpoint
ALTER TABLE "customers" ALTER COLUMN "password_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sellers" ADD COLUMN "login_requires_verified_email" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "staff_known_addresses" ADD CONSTRAINT "staff_known_addresses_user_id_staff_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."staff_users"("id") ON DELETE cascade ON UPDATE no action;