/**
 * The whole selection set of a GraphQL object type, its objects' fields included, the `JSON`
 * twins of the typed answers left out: what a client asks for to read a typed answer in full
 * (the `…Report` fields, api/graphql/zod-objects.ts), to compare with the REST JSON of the
 * same answer, which keeps its deprecated fields too.
 */
// The CommonJS build of graphql-js: the copy Pothos builds the schema with under vitest.
import { getNamedType, isObjectType } from "graphql/index.js";
import { schema } from "../../api/graphql/index.js";

export function selectionOf(typeName: string): string {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type of the schema`);
  const fields = Object.values(type.getFields()).filter((f) => getNamedType(f.type).name !== "JSON");
  return `{ ${fields
    .map((f) => {
      if (f.args.length) throw new Error(`${typeName}.${f.name} takes arguments`);
      const named = getNamedType(f.type);
      return isObjectType(named) ? `${f.name} ${selectionOf(named.name)}` : f.name;
    })
    .join(" ")} }`;
}
