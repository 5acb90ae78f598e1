/**
 * The public GraphQL schema, printed and sorted: every change to it shows in review as a
 * change to the snapshot file.
 */
// The CommonJS build of graphql-js: the copy Pothos builds the schema with under vitest.
import { lexicographicSortSchema, printSchema } from "graphql/index.js";
import { describe, expect, it } from "vitest";
import { schema } from "../../api/graphql/index.js";

describe("GraphQL schema", () => {
  it("matches the reviewed snapshot", async () => {
    await expect(printSchema(lexicographicSortSchema(schema))).toMatchFileSnapshot("./__snapshots__/schema.graphql");
  });
});
