-- Edited by hand: IF NOT EXISTS, because API processes of an earlier build let the rate-limit
-- library create this table itself, in this very layout.
CREATE TABLE IF NOT EXISTS "engine"."api_rate_limits" (
	"key" varchar(255) PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" bigint
);
