/**
 * Text a person gives the service (token names and symbols, descriptions, personas): well-formed
 * Unicode (no lone UTF-16 surrogate, which would reach the chain as U+FFFD), no control
 * characters (C0, DEL, C1), and lengths counted in UTF-8 bytes, as the launcher stores them
 * onchain — so what is accepted is exactly what is stored.
 */
import { z } from "zod";

/** C0 controls, DEL and C1 controls (Unicode category Cc). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** The same, less tab and line breaks (for multi-line text such as a description). */
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const utf8Bytes = (v: string) => Buffer.byteLength(v, "utf8");

/** Why `v` is not acceptable text, or undefined. */
export function textProblem(v: string, multiline = false): string | undefined {
  if (LONE_SURROGATE.test(v)) return "must be well-formed Unicode (no lone surrogates)";
  if ((multiline ? CONTROL_BUT_LINES : CONTROL).test(v)) return "must not contain control characters";
  return undefined;
}

/**
 * A trimmed text field of `min`..`maxBytes` UTF-8 bytes (messages name the field; `min` 1
 * says "must not be empty"); `multiline` allows tabs and line breaks.
 */
export const textField = (field: string, p: { min?: number; maxBytes: number; multiline?: boolean }) =>
  z
    .string({ invalid_type_error: `${field} must be a string`, required_error: `${field} is required` })
    .superRefine((v, ctx) => {
      const problem = textProblem(v, p.multiline);
      if (problem) ctx.addIssue({ code: "custom", message: `${field} ${problem}` });
    })
    .transform((v) => v.trim())
    .superRefine((v, ctx) => {
      const min = p.min ?? 0;
      if (v.length < min) ctx.addIssue({ code: "custom", message: min === 1 ? `${field} must not be empty` : `${field} must be at least ${min} characters` });
      else if (utf8Bytes(v) > p.maxBytes) ctx.addIssue({ code: "custom", message: `${field} must be at most ${p.maxBytes} bytes (UTF-8)` });
    });
