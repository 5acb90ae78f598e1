/** Assembles the GraphQL schema and the yoga server mounted at /graphql. */
import { createYoga } from "graphql-yoga";
import { builder } from "./builder.js";
import "./burn.js";

export const schema = builder.toSchema();

export const yoga = createYoga({
  schema,
  graphqlEndpoint: "/graphql",
  graphiql: true,
  landingPage: false,
  // Node's own fetch primitives: SSE responses must be streams ponder's server can pipe.
  fetchAPI: { Request, Response, Headers, ReadableStream, fetch },
  maskedErrors: true,
});
