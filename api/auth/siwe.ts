/**
 * Sign-In with Ethereum (EIP-4361): the checks of a message's fields against what this
 * server expects, with one reason per failure. Pure; the nonce store and the signature check
 * (through the chain, so smart-contract wallets verify too) are the caller's.
 */
import { type Address, getAddress, isAddress } from "viem";
import { type SiweMessage, parseSiweMessage } from "viem/siwe";

/** How long a nonce is valid after it is issued. */
export const NONCE_TTL_MS = 5 * 60_000;
/** Longest session; a message's own expirationTime may shorten it. */
export const SESSION_TTL_MS = 24 * 60 * 60_000;
/** Clock skew tolerated on issuedAt / notBefore. */
export const CLOCK_SKEW_MS = 60_000;

export type SiweExpectations = {
  /** The host the user signs in to (RFC 3986 authority, e.g. `app.example.com` or `127.0.0.1:42069`). */
  domain: string;
  /** The scheme the message's URI must use with that host (e.g. `https:`); any when absent. */
  protocol?: string;
  chainId: number;
  now: Date;
};

export type CheckedSiwe = { ok: true; message: SiweMessage & { address: Address; nonce: string; chainId: number } } | { ok: false; reason: string };

/** Parses and checks every field but the nonce's state and the signature. */
export function checkSiweMessage(text: string, expect: SiweExpectations): CheckedSiwe {
  let m: Partial<SiweMessage>;
  try {
    m = parseSiweMessage(text);
  } catch {
    return { ok: false, reason: "not a Sign-In with Ethereum message" };
  }
  if (!m.domain || !m.address || !m.uri || !m.version || m.chainId === undefined || !m.nonce || !m.issuedAt) {
    return { ok: false, reason: "not a Sign-In with Ethereum message: domain, address, URI, version, chain ID, nonce and issued-at are required" };
  }
  if (!isAddress(m.address, { strict: false })) return { ok: false, reason: "invalid address in the message" };
  if (m.version !== "1") return { ok: false, reason: `unsupported version ${m.version}` };
  if (m.domain.toLowerCase() !== expect.domain.toLowerCase()) return { ok: false, reason: `wrong domain: expected ${expect.domain}` };
  let uri: URL;
  try {
    uri = new URL(m.uri);
  } catch {
    return { ok: false, reason: "invalid URI in the message" };
  }
  if (uri.host.toLowerCase() !== expect.domain.toLowerCase() || (expect.protocol !== undefined && uri.protocol !== expect.protocol)) {
    return { ok: false, reason: `wrong URI: expected a URI on ${expect.protocol ? `${expect.protocol}//` : ""}${expect.domain}` };
  }
  if (m.chainId !== expect.chainId) return { ok: false, reason: `wrong chain ID: expected ${expect.chainId}` };
  if (!/^[a-zA-Z0-9]{8,}$/.test(m.nonce)) return { ok: false, reason: "invalid nonce" };
  const now = expect.now.getTime();
  const valid = (d: Date | undefined) => d === undefined || !Number.isNaN(d.getTime());
  if (!valid(m.issuedAt) || !valid(m.expirationTime) || !valid(m.notBefore)) return { ok: false, reason: "invalid timestamp in the message" };
  if (m.issuedAt.getTime() > now + CLOCK_SKEW_MS) return { ok: false, reason: "message issued in the future" };
  if (m.issuedAt.getTime() < now - NONCE_TTL_MS - CLOCK_SKEW_MS) return { ok: false, reason: "message expired: issued too long ago" };
  if (m.expirationTime && m.expirationTime.getTime() <= now) return { ok: false, reason: "message expired" };
  if (m.notBefore && m.notBefore.getTime() > now + CLOCK_SKEW_MS) return { ok: false, reason: "message not yet valid" };
  return { ok: true, message: { ...(m as SiweMessage), address: getAddress(m.address), nonce: m.nonce, chainId: m.chainId } };
}

/** What a message must carry to sign in to the service at `publicUrl` (configured, never the request's Host). */
export function expectationsFor(publicUrl: URL, chainId: number, now: Date): SiweExpectations {
  return { domain: publicUrl.host, protocol: publicUrl.protocol, chainId, now };
}

/** When a session made from this message ends. */
export function sessionExpiry(message: Pick<SiweMessage, "expirationTime">, now: Date): Date {
  const max = now.getTime() + SESSION_TTL_MS;
  return new Date(message.expirationTime ? Math.min(max, message.expirationTime.getTime()) : max);
}
