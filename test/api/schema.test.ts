/**
 * The public GraphQL schema, printed and sorted: every change to it shows in review as a
 * change to the snapshot file.
 */
import { describe, expect, it } from "vitest";
import { printedSchema } from "../../api/graphql/index.js";

describe("GraphQL schema", () => {
  it("matches the reviewed snapshot", async () => {
    await expect(printedSchema()).toMatchFileSnapshot("./__snapshots__/schema.graphql");
  });
});
