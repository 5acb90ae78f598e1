/**
 * The agent log (`engine.agent_log`): every decision taken for an agent's token, with its
 * reason. Launch steps write here as the workers do; the prospectus page reads it.
 */
import type pg from "pg";
import { type Address, getAddress } from "viem";

export type AgentLogEntry = {
  id: number;
  token: Address | null;
  worker: string;
  decision: string;
  reason: string;
  data: Record<string, unknown> | null;
  createdAt: Date;
};

/** The worker name of the launch steps. */
export const LAUNCH_WORKER = "agent-launch";

/** Writes one entry, once: a step resumed after a crash does not log twice. */
export async function logOnce(
  pool: pg.Pool,
  p: { agentId: string; token: Address | null; worker?: string; decision: string; reason: string; data?: Record<string, unknown> },
): Promise<void> {
  const data = { ...p.data, agentId: p.agentId };
  await pool.query(
    `INSERT INTO engine.agent_log (token, worker, decision, reason, data)
     SELECT $1, $2, $3, $4, $5::jsonb
      WHERE NOT EXISTS (SELECT 1 FROM engine.agent_log WHERE worker = $2 AND decision = $3 AND data->>'agentId' = $6 AND reason = $4)`,
    [p.token, p.worker ?? LAUNCH_WORKER, p.decision, p.reason, JSON.stringify(data), p.agentId],
  );
}

/**
 * The newest entries of an agent: its launch steps and every decision for its token. With no
 * agent (`agentId` null), the decisions for the token alone.
 */
export async function agentLog(pool: pg.Pool, p: { agentId: string | null; token: Address | null; limit: number }): Promise<AgentLogEntry[]> {
  const { rows } = await pool.query(
    `SELECT * FROM engine.agent_log WHERE data->>'agentId' = $1 OR ($2::text IS NOT NULL AND lower(token) = lower($2::text))
      ORDER BY id DESC LIMIT $3`,
    [p.agentId, p.token, p.limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    token: r.token ? getAddress(r.token as string) : null,
    worker: r.worker as string,
    decision: r.decision as string,
    reason: r.reason as string,
    data: (r.data as Record<string, unknown> | null) ?? null,
    createdAt: r.created_at as Date,
  }));
}
