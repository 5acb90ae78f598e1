CREATE TABLE "engine"."webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"endpoint_id" text NOT NULL,
	"fact_key" text NOT NULL,
	"kind" text NOT NULL,
	"token" text,
	"block_number" bigint NOT NULL,
	"phase" text NOT NULL,
	"body" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"open" boolean DEFAULT false NOT NULL,
	"after_id" bigint,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"delivered_at" timestamp with time zone,
	"dead_at" timestamp with time zone,
	CONSTRAINT "webhook_deliveries_phase_check" CHECK (phase IN ('pending', 'final', 'retracted')),
	CONSTRAINT "webhook_deliveries_status_check" CHECK (status IN ('queued', 'delivered', 'dead'))
);
--> statement-breakpoint
CREATE TABLE "engine"."webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"events" jsonb NOT NULL,
	"token" text,
	"pending" boolean DEFAULT false NOT NULL,
	"secret" text NOT NULL,
	"description" text,
	"since_block" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "engine"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "engine"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_fact" ON "engine"."webhook_deliveries" USING btree ("endpoint_id","fact_key","phase");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due" ON "engine"."webhook_deliveries" USING btree ("next_attempt_at") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_open" ON "engine"."webhook_deliveries" USING btree ("endpoint_id") WHERE open;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_dead" ON "engine"."webhook_deliveries" USING btree ("dead_at","id") WHERE status = 'dead';