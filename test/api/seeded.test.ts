/**
 * The API suites that read the seeded scenario, over one world (test/api/seeded/world.ts): one
 * ponder and one seed instead of one per suite. Each suite is a module of test/api/seeded/ and
 * runs in its own `describe`, in this order; the suites that write the most run last.
 */
import { describe } from "vitest";
import { exportSuite } from "./seeded/export.js";
import { graphqlSuite } from "./seeded/graphql.js";
import { openapiContractSuite } from "./seeded/openapi-contract.js";
import { restSuite } from "./seeded/rest.js";
import { withSeededWorld } from "./seeded/world.js";

withSeededWorld();

describe("REST", restSuite);
describe("OpenAPI contract", openapiContractSuite);
describe("exports", exportSuite);
describe("GraphQL", graphqlSuite);
