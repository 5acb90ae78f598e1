/**
 * Agents in PostgreSQL (`engine.agents`): creation with a fresh encrypted wallet, reads by
 * id, token or owner, charter changes (refused once the launch has begun), and the launch's
 * progress. Every write of a status goes through here.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { type Address, type Hex, getAddress } from "viem";
import type { AgentStatus } from "../../schema/agents.js";
import { type Charter, charterHash, charterSchema } from "./charter.js";
import { newAgentWallet } from "./keys.js";

export type CharterSource = "default" | "submit" | "chat";

/** The launch body as first accepted (what a resumed launch uses). */
export type LaunchParams = { name: string; symbol: string; image: string; description: string; devBuyWei: bigint };

export type Agent = {
  id: string;
  owner: Address;
  wallet: Address;
  /** Encrypted; never leaves the engine. */
  walletKey: string;
  status: AgentStatus;
  statusReason: string | null;
  charter: Charter | null;
  charterHash: Hex | null;
  charterSource: CharterSource | null;
  launch: LaunchParams | null;
  launchAttempt: number;
  token: Address | null;
  poolId: Hex | null;
  feeTx: Hex | null;
  deployTx: Hex | null;
  devBuyTx: Hex | null;
  enrollTx: Hex | null;
  createdAt: Date;
  updatedAt: Date;
  launchedAt: Date | null;
};

export class AgentConflictError extends Error {
  override name = "AgentConflictError";
}

const addr = (v: unknown) => (v ? getAddress(v as string) : null);

function toAgent(r: Record<string, unknown>): Agent {
  const launch = r.launch as Record<string, string> | null;
  return {
    id: r.id as string,
    owner: getAddress(r.owner as string),
    wallet: getAddress(r.wallet as string),
    walletKey: r.wallet_key as string,
    status: r.status as AgentStatus,
    statusReason: (r.status_reason as string | null) ?? null,
    charter: r.charter ? charterSchema.parse(r.charter) : null,
    charterHash: (r.charter_hash as Hex | null) ?? null,
    charterSource: (r.charter_source as CharterSource | null) ?? null,
    launch: launch
      ? { name: launch.name!, symbol: launch.symbol!, image: launch.image ?? "", description: launch.description ?? "", devBuyWei: BigInt(launch.devBuyWei ?? "0") }
      : null,
    launchAttempt: Number(r.launch_attempt),
    token: addr(r.token),
    poolId: (r.pool_id as Hex | null) ?? null,
    feeTx: (r.fee_tx as Hex | null) ?? null,
    deployTx: (r.deploy_tx as Hex | null) ?? null,
    devBuyTx: (r.dev_buy_tx as Hex | null) ?? null,
    enrollTx: (r.enroll_tx as Hex | null) ?? null,
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
    launchedAt: (r.launched_at as Date | null) ?? null,
  };
}

/** Whether the charter may still change: before the launch begins, or after a launch failed before its token existed. */
export function charterEditable(agent: Agent): boolean {
  if (agent.token || agent.feeTx) return false;
  return agent.status === "draft" || agent.status === "charter-ready" || agent.status === "failed";
}

export async function createAgent(pool: pg.Pool, p: { owner: Address; secret: string }): Promise<Agent> {
  const id = randomUUID();
  const wallet = newAgentWallet(p.secret, id);
  const { rows } = await pool.query(
    "INSERT INTO engine.agents (id, owner, wallet, wallet_key, status) VALUES ($1, $2, $3, $4, 'draft') RETURNING *",
    [id, getAddress(p.owner), wallet.address, wallet.encryptedKey],
  );
  return toAgent(rows[0]);
}

export async function getAgent(pool: pg.Pool, id: string): Promise<Agent | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const { rows } = await pool.query("SELECT * FROM engine.agents WHERE id = $1", [id.toLowerCase()]);
  return rows[0] ? toAgent(rows[0]) : undefined;
}

export async function getAgentByToken(pool: pg.Pool, token: Address): Promise<Agent | undefined> {
  const { rows } = await pool.query("SELECT * FROM engine.agents WHERE token = $1", [getAddress(token)]);
  return rows[0] ? toAgent(rows[0]) : undefined;
}

/** Agents whose launch began but did not finish (for resuming after a restart). */
export async function unfinishedLaunches(pool: pg.Pool): Promise<Agent[]> {
  const { rows } = await pool.query("SELECT * FROM engine.agents WHERE status IN ('launching', 'launched') ORDER BY updated_at");
  return rows.map(toAgent);
}

/** Sets the charter (validated again here), unless the launch has begun. */
export async function setCharter(pool: pg.Pool, id: string, charter: Charter, source: CharterSource): Promise<Agent> {
  const valid = charterSchema.parse(charter);
  const { rows } = await pool.query(
    `UPDATE engine.agents SET charter = $2, charter_hash = $3, charter_source = $4, status = 'charter-ready', status_reason = NULL, updated_at = now()
      WHERE id = $1 AND token IS NULL AND fee_tx IS NULL AND status IN ('draft', 'charter-ready', 'failed') RETURNING *`,
    [id, JSON.stringify(valid), charterHash(valid), source],
  );
  if (!rows[0]) throw new AgentConflictError("the charter is immutable once the launch has begun");
  return toAgent(rows[0]);
}

/** Column updates of a launch step (snake_case column → value). */
export async function updateAgent(pool: pg.Pool | pg.PoolClient, id: string, fields: Record<string, unknown>): Promise<Agent> {
  const keys = Object.keys(fields);
  const sets = keys.map((k, i) => `"${k}" = $${i + 2}`).join(", ");
  const values = keys.map((k) => {
    const v = fields[k];
    if (typeof v === "bigint") return v.toString();
    if (v && typeof v === "object" && !(v instanceof Date)) return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
    return v;
  });
  const { rows } = await pool.query(`UPDATE engine.agents SET ${sets}, updated_at = now() WHERE id = $1 RETURNING *`, [id, ...values]);
  return toAgent(rows[0]);
}
