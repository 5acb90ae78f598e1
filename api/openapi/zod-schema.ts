/**
 * zod with OpenAPI metadata (`@asteasolutions/zod-to-openapi`): the document at
 * /api/v1/openapi.json is generated from the very schemas that validate requests. Importing
 * this module adds `.openapi()` to zod's schemas (the library's extension, done once).
 */
import { type ZodOpenAPIMetadata, extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";
import { type ZodTypeAny, z } from "zod";

extendZodWithOpenApi(z);

/**
 * Documents `schema` as `json` (used where the accepted JSON differs from zod's view of it,
 * such as an exact JSON number read into basis points).
 */
export function documented<T extends ZodTypeAny>(schema: T, json: ZodOpenAPIMetadata): T {
  return schema.openapi(json) as T;
}
