/**
 * graphql-js, from its CommonJS build: the one Node gives Pothos, yoga and graphql-armor. A
 * bare `import "graphql"` in a file run through vite (ponder's build, vitest) would load the
 * ESM build, a second copy whose GraphQLError and types the others do not recognise.
 */
export { GraphQLError, lexicographicSortSchema, printSchema } from "graphql/index.js";
