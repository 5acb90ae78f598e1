/**
 * Agents in PostgreSQL (`engine.agents`): creation with a fresh encrypted wallet, reads by
 * id, token or owner, charter changes (refused once the launch has begun), and the launch's
 * progress. Every write of a status goes through here.
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type pg from "pg";
import { type Address, type Hex, getAddress } from "viem";
import { type AgentStatus, agents } from "../../schema/agents.js";
import { dbOf } from "../db/client.js";
import { type Charter, charterHash, charterSchema } from "./charter.js";
import { newAgentWallet } from "./keys.js";
import { ServiceError } from "../errors.js";

/** How an agent's charter was set: the default, a submitted one, or drafted in a chat. */
export const CHARTER_SOURCES = ["default", "submit", "chat"] as const;
export type CharterSource = (typeof CHARTER_SOURCES)[number];

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

export class AgentConflictError extends ServiceError {
  override name = "AgentConflictError";
  constructor(message: string) {
    super(message, { code: "CONFLICT" });
  }
}

type AgentRow = typeof agents.$inferSelect;
/** Columns a launch step writes. */
export type AgentFields = Partial<Omit<typeof agents.$inferInsert, "id" | "owner" | "wallet" | "walletKey" | "createdAt" | "updatedAt">>;

function toAgent(r: AgentRow): Agent {
  const launch = r.launch;
  return {
    id: r.id,
    owner: getAddress(r.owner),
    wallet: getAddress(r.wallet),
    walletKey: r.walletKey,
    status: r.status,
    statusReason: r.statusReason ?? null,
    charter: r.charter ? charterSchema.parse(r.charter) : null,
    charterHash: (r.charterHash as Hex | null) ?? null,
    charterSource: (r.charterSource as CharterSource | null) ?? null,
    launch: launch
      ? {
          name: launch.name!,
          symbol: launch.symbol!,
          image: launch.image ?? "",
          description: launch.description ?? "",
          devBuyWei: BigInt(launch.devBuyWei ?? "0"),
        }
      : null,
    launchAttempt: r.launchAttempt,
    token: r.token ? getAddress(r.token) : null,
    poolId: (r.poolId as Hex | null) ?? null,
    feeTx: (r.feeTx as Hex | null) ?? null,
    deployTx: (r.deployTx as Hex | null) ?? null,
    devBuyTx: (r.devBuyTx as Hex | null) ?? null,
    enrollTx: (r.enrollTx as Hex | null) ?? null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    launchedAt: r.launchedAt ?? null,
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
  const [row] = await dbOf(pool)
    .insert(agents)
    .values({ id, owner: getAddress(p.owner), wallet: wallet.address, walletKey: wallet.encryptedKey, status: "draft" })
    .returning();
  return toAgent(row!);
}

export async function getAgent(pool: pg.Pool, id: string): Promise<Agent | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const [row] = await dbOf(pool).select().from(agents).where(eq(agents.id, id.toLowerCase()));
  return row ? toAgent(row) : undefined;
}

export async function getAgentByToken(pool: pg.Pool, token: Address): Promise<Agent | undefined> {
  const [row] = await dbOf(pool)
    .select()
    .from(agents)
    .where(eq(agents.token, getAddress(token)));
  return row ? toAgent(row) : undefined;
}

/** Agents whose launch began but did not finish (for resuming after a restart). */
export async function unfinishedLaunches(pool: pg.Pool): Promise<Agent[]> {
  const rows = await dbOf(pool)
    .select()
    .from(agents)
    .where(inArray(agents.status, ["launching", "launched"]))
    .orderBy(asc(agents.updatedAt));
  return rows.map(toAgent);
}

/** Sets the charter (validated again here), unless the launch has begun. */
export async function setCharter(pool: pg.Pool, id: string, charter: Charter, source: CharterSource): Promise<Agent> {
  const valid = charterSchema.parse(charter);
  const [row] = await dbOf(pool)
    .update(agents)
    .set({ charter: valid, charterHash: charterHash(valid), charterSource: source, status: "charter-ready", statusReason: null, updatedAt: sql`now()` })
    .where(and(eq(agents.id, id), isNull(agents.token), isNull(agents.feeTx), inArray(agents.status, ["draft", "charter-ready", "failed"])))
    .returning();
  if (!row) throw new AgentConflictError("the charter is immutable once the launch has begun");
  return toAgent(row);
}

/** Column updates of a launch step. */
export async function updateAgent(pool: pg.Pool, id: string, fields: AgentFields): Promise<Agent> {
  const [row] = await dbOf(pool)
    .update(agents)
    .set({ ...fields, updatedAt: sql`now()` })
    .where(eq(agents.id, id))
    .returning();
  return toAgent(row!);
}
