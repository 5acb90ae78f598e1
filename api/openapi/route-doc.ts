/**
 * The OpenAPI entry of a route mounted outside the REST shim's `defineRoute` (sign-in, agents,
 * prospectus pages): the library's route config, written beside the route with the zod
 * schemas that validate it. `api/openapi/document.ts` assembles them with the shim's routes.
 */
import type { RouteConfig } from "@asteasolutions/zod-to-openapi";
import type { ZodTypeAny } from "zod";
import "./zod-schema.js";

export type RouteDoc = RouteConfig & {
  /** Which bearer the route needs: the operator key or a Sign-In with Ethereum session. */
  auth?: "operatorKey" | "session";
};

/** A JSON answer documented by its zod schema. */
export const jsonAnswer = (description: string, schema: ZodTypeAny) => ({ description, content: { "application/json": { schema } } });

/** An error answer (`{ error }`), referencing the shared Error component. */
export const errorAnswer = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
