/**
 * The OpenAPI entry of a route mounted outside the REST shim's `defineRoute` (sign-in, agents,
 * prospectus pages): the library's route config, written beside the route with the zod
 * schemas that validate it. `api/openapi/document.ts` assembles them with the shim's routes.
 */
import type { RouteConfig } from "@asteasolutions/zod-to-openapi";
import { type ZodTypeAny, z } from "zod";
import type { ServiceErrorCode } from "../../core/errors.js";
import "./zod-schema.js";

export type RouteDoc = RouteConfig & {
  /** Which bearer the route needs: the operator key or a Sign-In with Ethereum session. */
  auth?: "operatorKey" | "session";
};

/** A JSON answer documented by its zod schema. */
export const jsonAnswer = (description: string, schema: ZodTypeAny) => ({ description, content: { "application/json": { schema } } });

/** The body of an error answer: `{ error, code }`, `code` one of `codes` (an enum a client generator turns into a type). */
export const errorBody = (codes: readonly ServiceErrorCode[]) =>
  z
    .object({
      error: z.string().describe("What went wrong, for people (may change: branch on `code`)"),
      code: z.enum(codes as [ServiceErrorCode, ...ServiceErrorCode[]]).describe("Stable machine code"),
    })
    .strict();

/** The description of an error answer, naming its codes. */
export const withCodes = (description: string, codes: readonly ServiceErrorCode[]) =>
  `${description.replace(/\.$/, "")}. Code${codes.length > 1 ? "s" : ""}: ${codes.map((c) => `\`${c}\``).join(", ")}.`;

/** An error answer (`{ error, code }`) with the codes the route answers at this status. */
export const errorAnswer = (description: string, codes: readonly ServiceErrorCode[]) => jsonAnswer(withCodes(description, codes), errorBody(codes));
