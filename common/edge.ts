/**
 * The JSON convention at the edge (docs/glossary.md), as zod schemas shared by every surface
 * that writes it: the API's views and the engine's webhook payloads. Addresses EIP-55
 * checksummed, hashes as 0x and 64 hex digits, amounts as exact decimal strings in whole units
 * beside their base units (a string of digits), times ISO-8601 in UTC.
 */
import { z } from "zod";

/** The convention's strings, each with its generic description (a field's own replaces it). */
export const json = {
  checksummed: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .describe("EIP-55 checksummed address"),
  hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  decimal: z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .describe("Exact decimal string in whole units"),
  digits: z
    .string()
    .regex(/^-?\d+$/)
    .describe("Base units"),
  iso: z.string().datetime().describe("ISO-8601 timestamp"),
};

/** An amount as an exact decimal, described as `what` it is. */
export const decimalOf = (what: string) => json.decimal.describe(`${what}: exact decimal string in whole units`);
/** A USDC amount as an exact decimal. */
export const usdcOf = (what: string) => decimalOf(`${what} (USDC)`);
