/**
 * Sign-In with Ethereum nonces and bearer sessions in PostgreSQL. Nonces come from
 * `crypto.randomBytes` (not viem's `generateSiweNonce`, which is not cryptographically
 * random), are single use and expire; a session token is 32 random bytes of which only the
 * SHA-256 is stored.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type pg from "pg";
import { type Address, getAddress } from "viem";
import { dbOf } from "../../core/db/client.js";
import { agentAuthNonces, agentSessions } from "../../schema/agents.js";
import { NONCE_TTL_MS } from "./siwe.js";

export type Session = { address: Address; chainId: number; expiresAt: Date };

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A fresh nonce (32 hex characters, 128 bits), stored with its expiry. */
export async function issueNonce(pool: pg.Pool, now = new Date()): Promise<{ nonce: string; expiresAt: Date }> {
  const nonce = randomBytes(16).toString("hex");
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
  const db = dbOf(pool);
  await db.insert(agentAuthNonces).values({ nonce, createdAt: now, expiresAt });
  // Forget nonces long expired (cheap: indexed by expiry).
  await db.delete(agentAuthNonces).where(lt(agentAuthNonces.expiresAt, new Date(now.getTime() - 24 * 60 * 60_000)));
  return { nonce, expiresAt };
}

export type NonceState = "valid" | "unknown" | "used" | "expired";

export async function nonceState(pool: pg.Pool, nonce: string, now = new Date()): Promise<NonceState> {
  const [row] = await dbOf(pool)
    .select({ expiresAt: agentAuthNonces.expiresAt, usedAt: agentAuthNonces.usedAt })
    .from(agentAuthNonces)
    .where(eq(agentAuthNonces.nonce, nonce));
  if (!row) return "unknown";
  if (row.usedAt) return "used";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  return "valid";
}

/** Marks the nonce used, atomically: false when it was already used (a replay) or has expired. */
export async function consumeNonce(pool: pg.Pool, nonce: string, by: Address, now = new Date()): Promise<boolean> {
  const used = await dbOf(pool)
    .update(agentAuthNonces)
    .set({ usedAt: now, usedBy: by })
    .where(and(eq(agentAuthNonces.nonce, nonce), isNull(agentAuthNonces.usedAt), gt(agentAuthNonces.expiresAt, now)))
    .returning({ nonce: agentAuthNonces.nonce });
  return used.length === 1;
}

export async function createSession(pool: pg.Pool, p: { address: Address; chainId: number; nonce: string; expiresAt: Date }): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await dbOf(pool)
    .insert(agentSessions)
    .values({ tokenHash: sha256(token), address: getAddress(p.address), chainId: p.chainId, nonce: p.nonce, expiresAt: p.expiresAt });
  return token;
}

/** The live session of a bearer token, if any. */
export async function findSession(pool: pg.Pool, token: string, now = new Date()): Promise<Session | undefined> {
  const [row] = await dbOf(pool)
    .select({ address: agentSessions.address, chainId: agentSessions.chainId, expiresAt: agentSessions.expiresAt })
    .from(agentSessions)
    .where(and(eq(agentSessions.tokenHash, sha256(token)), isNull(agentSessions.revokedAt), gt(agentSessions.expiresAt, now)));
  return row ? { address: getAddress(row.address), chainId: row.chainId, expiresAt: row.expiresAt } : undefined;
}

export async function revokeSession(pool: pg.Pool, token: string): Promise<void> {
  await dbOf(pool)
    .update(agentSessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(agentSessions.tokenHash, sha256(token)), isNull(agentSessions.revokedAt)));
}
