/**
 * The API suites over one seeded world (test/api/seeded/world.ts): one ponder and one seed
 * instead of one per suite. Each suite is a module of test/api/seeded/ and runs in its own
 * `describe`, in this order: the readers of the scenario first, then the suites that launch
 * tokens of their own, and last the market suite, which moves the chain's clock forward.
 */
import { describe } from "vitest";
import { exportSuite } from "./seeded/export.js";
import { fuzzSuite } from "./seeded/fuzz.js";
import { graphqlSuite } from "./seeded/graphql.js";
import { marketSuite } from "./seeded/market.js";
import { openapiContractSuite } from "./seeded/openapi-contract.js";
import { registerSuite } from "./seeded/register.js";
import { restSuite } from "./seeded/rest.js";
import { sqlSuite } from "./seeded/sql.js";
import { withSeededWorld } from "./seeded/world.js";

withSeededWorld();

describe("REST", restSuite);
describe("OpenAPI contract", openapiContractSuite);
describe("exports", exportSuite);
describe("SQL over HTTP", sqlSuite);
describe("fuzz", fuzzSuite);
describe("register", registerSuite);
describe("GraphQL", graphqlSuite);
describe("market", marketSuite);
