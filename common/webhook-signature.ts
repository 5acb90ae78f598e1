/**
 * Webhook signatures, as Stripe signs its events (docs/design.md §7.1): the header
 * `Launchpad-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the
 * endpoint's secret>`. The timestamp is the attempt's, so a retry is signed anew over the same
 * body; a receiver checks the HMAC in constant time and refuses a timestamp older than its
 * tolerance (a replayed request). Pure: no IO.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "launchpad-signature";
export const DELIVERY_HEADER = "launchpad-delivery";
export const EVENT_HEADER = "launchpad-event";
/** How old a signature's timestamp may be by default when a receiver checks it (Stripe's default). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new endpoint secret: `whsec_` and 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

function hmac(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/** The signature header's value for `body` sent at `timestamp` (unix seconds). */
export function signWebhook(secret: string, body: string, timestamp: number = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${hmac(secret, timestamp, body)}`;
}

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: string };

/**
 * What a receiver does with a delivery: parses the header, recomputes the HMAC of
 * `<t>.<raw body>` with its copy of the secret, compares in constant time, and refuses a
 * timestamp further than `toleranceSeconds` from `now` (unix seconds).
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  body: string,
  options: { toleranceSeconds?: number; now?: number } = {},
): SignatureCheck {
  if (!header) return { ok: false, reason: "no signature header" };
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value] = part.trim().split("=", 2);
    if (key === "t" && value && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && value) signatures.push(value);
  }
  if (timestamp === undefined) return { ok: false, reason: "no timestamp in the signature header" };
  if (!signatures.length) return { ok: false, reason: "no v1 signature in the signature header" };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return { ok: false, reason: "timestamp outside the tolerance" };
  const expected = Buffer.from(hmac(secret, timestamp, body), "hex");
  const match = signatures.some((s) => {
    const given = Buffer.from(s, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return match ? { ok: true, timestamp } : { ok: false, reason: "signature does not match" };
}
