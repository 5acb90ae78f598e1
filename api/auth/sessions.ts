/**
 * Sign-In with Ethereum nonces and bearer sessions in PostgreSQL. Nonces come from
 * `crypto.randomBytes` (not viem's `generateSiweNonce`, which is not cryptographically
 * random), are single use and expire; a session token is 32 random bytes of which only the
 * SHA-256 is stored.
 */
import { createHash, randomBytes } from "node:crypto";
import type pg from "pg";
import { type Address, getAddress } from "viem";
import { NONCE_TTL_MS } from "./siwe.js";

export type Session = { address: Address; chainId: number; expiresAt: Date };

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A fresh nonce (32 hex characters, 128 bits), stored with its expiry. */
export async function issueNonce(pool: pg.Pool, now = new Date()): Promise<{ nonce: string; expiresAt: Date }> {
  const nonce = randomBytes(16).toString("hex");
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
  await pool.query("INSERT INTO engine.agent_auth_nonces (nonce, created_at, expires_at) VALUES ($1, $2, $3)", [nonce, now, expiresAt]);
  // Forget nonces long expired (cheap: indexed by expiry).
  await pool.query("DELETE FROM engine.agent_auth_nonces WHERE expires_at < $1", [new Date(now.getTime() - 24 * 60 * 60_000)]);
  return { nonce, expiresAt };
}

export type NonceState = "valid" | "unknown" | "used" | "expired";

export async function nonceState(pool: pg.Pool, nonce: string, now = new Date()): Promise<NonceState> {
  const { rows } = await pool.query<{ expires_at: Date; used_at: Date | null }>("SELECT expires_at, used_at FROM engine.agent_auth_nonces WHERE nonce = $1", [nonce]);
  const row = rows[0];
  if (!row) return "unknown";
  if (row.used_at) return "used";
  if (row.expires_at.getTime() <= now.getTime()) return "expired";
  return "valid";
}

/** Marks the nonce used, atomically: false when it was already used (a replay) or has expired. */
export async function consumeNonce(pool: pg.Pool, nonce: string, by: Address, now = new Date()): Promise<boolean> {
  const { rowCount } = await pool.query(
    "UPDATE engine.agent_auth_nonces SET used_at = $3, used_by = $2 WHERE nonce = $1 AND used_at IS NULL AND expires_at > $3",
    [nonce, by, now],
  );
  return rowCount === 1;
}

export async function createSession(pool: pg.Pool, p: { address: Address; chainId: number; nonce: string; expiresAt: Date }): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await pool.query("INSERT INTO engine.agent_sessions (token_hash, address, chain_id, nonce, expires_at) VALUES ($1, $2, $3, $4, $5)", [
    sha256(token),
    getAddress(p.address),
    p.chainId,
    p.nonce,
    p.expiresAt,
  ]);
  return token;
}

/** The live session of a bearer token, if any. */
export async function findSession(pool: pg.Pool, token: string, now = new Date()): Promise<Session | undefined> {
  const { rows } = await pool.query<{ address: string; chain_id: number; expires_at: Date }>(
    "SELECT address, chain_id, expires_at FROM engine.agent_sessions WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2",
    [sha256(token), now],
  );
  const row = rows[0];
  return row ? { address: getAddress(row.address), chainId: row.chain_id, expiresAt: row.expires_at } : undefined;
}

export async function revokeSession(pool: pg.Pool, token: string): Promise<void> {
  await pool.query("UPDATE engine.agent_sessions SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL", [sha256(token)]);
}
