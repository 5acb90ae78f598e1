/**
 * drizzle-kit: the engine's tables are declared in `schema/`; `npm run db:generate` writes the
 * SQL migration of any change to them into `core/db/migrations/`, which `core/db/migrations.ts`
 * applies at engine and API start. Only the `engine` schema is ours: ponder owns the indexed
 * tables (`schema/ponder.ts`) and creates them itself. Generating needs no database.
 */
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: ["./schema/engine.ts", "./schema/agents.ts"],
  schemaFilter: ["engine"],
  out: "./core/db/migrations",
});
