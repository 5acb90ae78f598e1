/**
 * Prints the database schema the indexer writes for this code and this configuration (the
 * environment, as `ponder start` reads it): `ponder start --schema "$(npx tsx scripts/index-schema.ts)"`.
 * A change of the indexer's code, chain, start block, operator, protocol token or any contract
 * address gives a new name, so ponder indexes afresh instead of refusing the old schema.
 */
import { loadConfigOrExit } from "../common/config.js";
import { ponderSchemaName } from "../devnet/ponder.js";

process.stdout.write(`${ponderSchemaName(loadConfigOrExit())}\n`);
