CREATE TABLE "engine"."audit_results" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run" bigint NOT NULL,
	"token" text NOT NULL,
	"block" bigint NOT NULL,
	"block_time" timestamp with time zone NOT NULL,
	"indexed_to" bigint,
	"settled" boolean NOT NULL,
	"ok" boolean NOT NULL,
	"differences" jsonb NOT NULL,
	"pending" jsonb NOT NULL,
	"checks" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_results_token" ON "engine"."audit_results" USING btree ("token","id");--> statement-breakpoint
CREATE INDEX "audit_results_run" ON "engine"."audit_results" USING btree ("run");