ALTER TABLE "engine"."desk_trades" ADD COLUMN "mark_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "engine"."desk_trades" ADD COLUMN "mark_charges" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "engine"."desk_trades" ADD COLUMN "mark_liquidation_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "engine"."desk_trades" ADD COLUMN "marked_at" timestamp with time zone;