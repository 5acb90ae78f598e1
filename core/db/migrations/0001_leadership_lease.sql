CREATE TABLE "engine"."leadership" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"epoch" bigint NOT NULL,
	"session_pid" integer,
	"acquired_at" timestamp with time zone NOT NULL,
	"renewed_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "engine"."tx_intents" ADD COLUMN "epoch" bigint;