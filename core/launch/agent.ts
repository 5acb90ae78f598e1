/**
 * The agent launch (`charter/launch`, docs/design.md §8): a fund check, then each step as an
 * intent keyed by the agent (and the attempt of a step that failed before):
 *
 *   1. agent wallet → operator: the platform fee (`agent:<id>:platform-fee`, once ever)
 *   2. agent wallet → launcher: `deployToken`, tokenAdmin = the agent wallet, rewards split
 *      by the charter (`agent:<id>:deploy:<attempt>`)
 *   3. agent wallet → UniversalRouter: the optional dev buy, ETH → WETH → USDC → token,
 *      bounded by a fresh quote and a deadline like every swap
 *   4. operator → registry: `enroll(token, owner, bps…, charterHash)` (rules locked)
 *   5. the activation credit, the token's mandate for the workers, status `running`.
 *
 * Each step's result is recorded on the agent before the next starts, and each intent is
 * found again by its key, so a crash anywhere resumes the launch instead of repeating a step.
 */
import { and, desc, eq, like } from "drizzle-orm";
import type pg from "pg";
import {
  type Address,
  type Chain,
  type Hex,
  type LocalAccount,
  type PublicClient,
  decodeErrorResult,
  encodeFunctionData,
  getAddress,
  keccak256,
  parseAbi,
  stringToBytes,
  toFunctionSelector,
} from "viem";
import { clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { registryAbi } from "../../common/abis/registry.js";
import { type Config, MissingConfigError, requireContract, requireLaunchFees } from "../../common/config.js";
import { ETH_DECIMALS, formatDecimal } from "../../common/money.js";
import type { Logger } from "../../common/logger.js";
import type { PoolKey } from "../../common/uniswap.js";
import { LaunchConfigError, buildDeploymentConfig, encodeDeployToken, launchSplitRewards, parseTokenCreated } from "../../common/deploy-config.js";
import type { TxOutcome, TxPipeline } from "../chain/pipeline/index.js";
import { type SwapPlan, planEthToToken, swapBounds } from "../chain/swap/plan.js";
import { explainSwapBound, swapRevertReason } from "../chain/swap/revert.js";
import { waitForSniperAuction } from "../chain/auction.js";
import { EngineError, Refusal, classifyError, revertDataOf } from "../errors.js";
import { dbOf, tables } from "../db/client.js";
import { agentCredits } from "../../schema/agents.js";
import { setTokenMandate } from "../token-mandate.js";
import { type Charter, charterMandate, charterSplit } from "../agents/charter.js";
import { agentAccount } from "../agents/keys.js";
import { logOnce } from "../agent-log.js";
import { type Agent, type LaunchParams, getAgent, unfinishedLaunches, updateAgent } from "../agents/store.js";
import { WalletUnderfundedError } from "../chain/pipeline/index.js";

/** Starting market cap of an agent's token: 10,000 USDC for the whole supply, like the protocol token. */
export const AGENT_LAUNCH_MARKET_CAP_USDC = 10_000_000_000n;
/** Gas set aside for the dev buy (its pool does not exist before the deploy, so it cannot be estimated then). */
export const DEV_BUY_GAS = 450_000n;
/** Gas of a plain ETH transfer to an account without code. */
const TRANSFER_GAS = 21_000n;
/** Errors of the Clanker v4 launcher, so its reverts read by name. */
const LAUNCHER_ERRORS = [
  "Deprecated()",
  "OnlyOriginatingChain()",
  "ExtensionNotEnabled()",
  "ExtensionMsgValueMismatch()",
  "LockerNotEnabled()",
  "InvalidPairedToken()",
  "InvalidPoolFee()",
  "TokenAlreadyHasRewards()",
  "TooManyRewardParticipants()",
  "InvalidRewardBps()",
  "ZeroRewardAddress()",
  "MismatchedRewardArrays()",
  "NoRewardRecipients()",
  "MismatchedPositionInfos()",
  "NoPositions()",
  "TooManyPositions()",
  "TicksBackwards()",
  "TicksOutOfTickBounds()",
  // OpenZeppelin's EIP712 (the token's permit domain) on a name longer than 31 bytes.
  "StringTooLong(string)",
];
const LAUNCHER_SELECTORS = new Map(LAUNCHER_ERRORS.map((sig) => [toFunctionSelector(sig), sig]));

const launcherErrorsAbi = parseAbi(LAUNCHER_ERRORS.map((sig) => `error ${sig}`));

/** `Name(args)` of a launcher error in the revert data of `error`, if that is what it holds. */
function decodeLauncherRevert(error: unknown): string | undefined {
  const data = revertDataOf(error);
  if (!data) return undefined;
  try {
    const decoded = decodeErrorResult({ abi: launcherErrorsAbi, data });
    return `${decoded.errorName}(${(decoded.args ?? []).map((a) => JSON.stringify(a)).join(", ")})`;
  } catch {
    return undefined;
  }
}

/** A revert reason, with the launcher's own errors named (`unknown error 0x…` otherwise). */
export function launcherReason(reason: string): string {
  const selector = /unknown error (0x[0-9a-fA-F]{8})/.exec(reason)?.[1]?.toLowerCase();
  const name = selector ? LAUNCHER_SELECTORS.get(selector as Hex) : undefined;
  return name ? reason.replace(/unknown error 0x[0-9a-fA-F]{8}/, name) : reason;
}

export type LaunchServices = {
  pool: pg.Pool;
  config: Config;
  publicClient: PublicClient;
  chain: Chain;
  /** The transaction pipeline of every signer (agent wallets send through it). */
  pipeline: TxPipeline;
  /** The same pipeline, once PROTOCOL_PRIVATE_KEY is known to be set (the enrolment is the operator's). */
  operatorPipeline: () => Promise<TxPipeline>;
  log: Logger;
};

export type AgentLaunchResult = {
  agent: Agent;
  token: Address;
  poolId: Hex;
  txs: { platformFee: Hex | null; deploy: Hex; devBuy: Hex | null; enroll: Hex | null };
};

/** What the launch still has to pay from the agent wallet, in wei. */
export type LaunchCost = { platformFeeWei: bigint; devBuyWei: bigint; gasWei: bigint; totalWei: bigint };

const eth = (wei: bigint) => formatDecimal(wei, ETH_DECIMALS);

function secretOf(config: Config): string {
  if (!config.agentKeySecret) throw new MissingConfigError("AGENT_KEY_SECRET");
  return config.agentKeySecret;
}

function operatorOf(config: Config): Address {
  if (!config.operatorKey) throw new MissingConfigError("PROTOCOL_PRIVATE_KEY");
  if (!config.operator) throw new MissingConfigError("PROTOCOL_PRIVATE_KEY");
  return config.operator;
}

/** The salt of a deploy attempt: deterministic, so a resumed attempt builds the same transaction. */
const saltOf = (agentId: string, attempt: number): Hex => keccak256(stringToBytes(`launchpad agent ${agentId} deploy ${attempt}`));

function deployCalldata(s: LaunchServices, agent: Agent, params: LaunchParams): Hex {
  const { config } = s;
  try {
    return encodeDeployToken(
      buildDeploymentConfig({
        tokenAdmin: agent.wallet,
        name: params.name,
        symbol: params.symbol,
        image: params.image,
        metadata: params.description ? JSON.stringify({ description: params.description }) : "",
        context: JSON.stringify({ interface: "launchpad", platform: "agent", agentId: agent.id, charterHash: agent.charterHash }),
        salt: saltOf(agent.id, agent.launchAttempt),
        chainId: config.chainId,
        pairedToken: requireContract(config, "usdc"),
        locker: requireContract(config, "lpLocker"),
        rewards: launchSplitRewards({ operator: operatorOf(config), creator: agent.owner, split: charterSplit(agent.charter!) }),
        startingMarketCap: AGENT_LAUNCH_MARKET_CAP_USDC,
        fees: requireLaunchFees(config),
      }),
    );
  } catch (error) {
    if (error instanceof LaunchConfigError) throw new Refusal("invalid", error.message);
    throw error;
  }
}

/**
 * The wallet balance the remaining steps need: the platform fee (unless paid), the dev buy
 * (unless done) and every remaining transaction's gas limit at today's max fee — what a node
 * checks before it accepts each transaction. A deploy that would revert is a 502 here,
 * before the fee is paid.
 */
export async function launchCost(s: LaunchServices, agent: Agent, params: LaunchParams): Promise<LaunchCost> {
  const { publicClient, config } = s;
  const margin = (gas: bigint) => gas + (gas * s.pipeline.options.gasMarginBps) / 10_000n;
  let gas = 0n;
  const platformFeeWei = agent.feeTx || config.platformLaunchFeeWei === 0n ? 0n : config.platformLaunchFeeWei;
  if (platformFeeWei > 0n) gas += margin(TRANSFER_GAS);
  if (!agent.token) {
    try {
      gas += margin(await publicClient.estimateGas({ account: agent.wallet, to: requireContract(config, "launcher"), data: deployCalldata(s, agent, params) }));
    } catch (error) {
      const e = classifyError(error);
      if (e.code === "revert")
        throw new Refusal("chain", `deploy reverted: ${decodeLauncherRevert(error) ?? launcherReason((e as { reason?: string }).reason ?? e.message)}`);
      throw e;
    }
  }
  const devBuyWei = agent.devBuyTx ? 0n : params.devBuyWei;
  if (devBuyWei > 0n) gas += margin(DEV_BUY_GAS);
  const fees = await publicClient.estimateFeesPerGas();
  const gasWei = gas * fees.maxFeePerGas!;
  return { platformFeeWei, devBuyWei, gasWei, totalWei: platformFeeWei + devBuyWei + gasWei };
}

/** Marks the agent failed (retryable: the next launch call resumes at the failed step) and returns the error to throw. */
async function fail(s: LaunchServices, agent: Agent, kind: "chain" | "underfunded", message: string): Promise<Refusal> {
  await updateAgent(s.pool, agent.id, { status: "failed", statusReason: message });
  await logOnce(s.pool, { agentId: agent.id, token: agent.token, decision: "launch-failed", reason: message, data: { attempt: agent.launchAttempt } });
  s.log.warn({ agent: agent.id, reason: message }, "agent launch step failed");
  return new Refusal(kind, message);
}

const reasonOf = (o: TxOutcome) => (o.status === "mined" ? "" : o.reason);

/** Sends from the agent wallet; an underfunded wallet marks the launch failed with a 422. */
async function sendFromAgent(s: LaunchServices, agent: Agent, account: LocalAccount, key: string, kind: string, to: Address, data: Hex, value = 0n) {
  try {
    return await s.pipeline.send({ key, kind, to, data, value, agentId: agent.id }, account);
  } catch (error) {
    if (error instanceof WalletUnderfundedError) {
      const balance = await s.publicClient.getBalance({ address: agent.wallet });
      throw await fail(
        s,
        agent,
        "underfunded",
        `agent wallet ${agent.wallet} holds ${eth(balance)} ETH and cannot pay for the ${kind.replace(/^agent-/, "")} transaction and its gas: fund it and launch again`,
      );
    }
    throw error;
  }
}

/**
 * The dev buy: ETH → WETH (router) → USDC (v3) → token (v4), bought for the agent wallet
 * (`payer`), its minimum output from a fresh quote less `SWAP_SLIPPAGE_BPS` and a deadline
 * `SWAP_DEADLINE_SECONDS` after the latest block (the one quoting path, `planEthToToken`).
 */
export async function devBuyCalldata(s: Pick<LaunchServices, "config" | "publicClient">, payer: Address, token: Address, devBuyWei: bigint): Promise<SwapPlan> {
  const { config, publicClient } = s;
  const rewards = await publicClient.readContract({
    address: requireContract(config, "lpLocker"),
    abi: clankerLpLockerAbi,
    functionName: "tokenRewards",
    args: [token],
  });
  const k = rewards.poolKey;
  const poolKey: PoolKey = {
    currency0: getAddress(k.currency0),
    currency1: getAddress(k.currency1),
    fee: k.fee,
    tickSpacing: k.tickSpacing,
    hooks: getAddress(k.hooks),
  };
  return planEthToToken(publicClient, {
    contracts: {
      weth: requireContract(config, "weth"),
      usdc: requireContract(config, "usdc"),
      v3WethUsdcPool: requireContract(config, "v3WethUsdcPool"),
      v4PoolManager: requireContract(config, "v4PoolManager"),
      universalRouter: requireContract(config, "universalRouter"),
    },
    payer,
    token,
    poolKey,
    amountInWei: devBuyWei,
    bounds: swapBounds(config),
    secondsToDecay: config.launchFees.secondsToDecay,
  });
}

/**
 * Waits until the dev buy is clear of the launch's sniper auction, as the pool's MEV module
 * runs it: never into a block before or at an auction block of any round (up to five, one
 * every two blocks while won), and not before the sniper fee has decayed from the last auction
 * (no charter allows paying a sniper fee: the dev buy pays the pool's own fee).
 */
async function waitForDevBuyWindow(s: LaunchServices, agent: Agent, token: Address): Promise<void> {
  const { config, publicClient, pool } = s;
  const rewards = await publicClient.readContract({
    address: requireContract(config, "lpLocker"),
    abi: clankerLpLockerAbi,
    functionName: "tokenRewards",
    args: [token],
  });
  const k = rewards.poolKey;
  const key: PoolKey = {
    currency0: getAddress(k.currency0),
    currency1: getAddress(k.currency1),
    fee: k.fee,
    tickSpacing: k.tickSpacing,
    hooks: getAddress(k.hooks),
  };
  const deploy = await publicClient.getTransactionReceipt({ hash: agent.deployTx! });
  await waitForSniperAuction(publicClient, {
    key,
    secondsToDecay: config.launchFees.secondsToDecay,
    onWait: (reason) =>
      void logOnce(pool, {
        agentId: agent.id,
        token,
        decision: "dev-buy-waits",
        reason: `the dev buy waits: ${reason}`,
        data: { launchBlock: String(deploy.blockNumber) },
      }).catch(() => {}),
  });
}

/**
 * Launches (or resumes the launch of) an agent. `params` is the launch body; a launch in
 * progress keeps the body it started with. Throws Refusal (and MissingConfigError).
 */
export async function launchAgent(s: LaunchServices, agentId: string, params?: LaunchParams): Promise<AgentLaunchResult> {
  const lock = await s.pool.connect();
  try {
    // Raw SQL: a session-level advisory lock, taken and released on one dedicated connection (no builder for lock functions).
    const { rows } = await lock.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [`agent-launch:${agentId}`]);
    if (!rows[0]?.ok) throw new Refusal("conflict", "a launch of this agent is in progress");
    try {
      return await runLaunch(s, agentId, params);
    } finally {
      await lock.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [`agent-launch:${agentId}`]).catch(() => {});
    }
  } finally {
    lock.release();
  }
}

async function runLaunch(s: LaunchServices, agentId: string, body?: LaunchParams): Promise<AgentLaunchResult> {
  const { config, pool } = s;
  let agent = await getAgent(pool, agentId);
  if (!agent) throw new Refusal("not-found", `no agent ${agentId}`);
  if (agent.status === "running") throw new Refusal("conflict", `agent already launched: token ${agent.token}`);
  if (!agent.charter || !agent.charterHash) throw new Refusal("conflict", "no charter yet: use charter/default, charter/submit or charter/chat first");
  const account = agentAccount(secretOf(config), agent.walletKey, agent.id, agent.wallet);
  const operator = operatorOf(config);
  const launcher = requireContract(config, "launcher");
  const registry = requireContract(config, "registry");

  // A launch in progress (a crash, or a step in flight) keeps its body; a new or failed one takes the new body.
  const inProgress = agent.status === "launching" || agent.status === "launched";
  const params = inProgress || agent.token ? (agent.launch ?? body) : (body ?? agent.launch);
  if (!params) throw new Refusal("invalid", "the launch body (name, symbol) is required");

  if (!inProgress) {
    if (agent.status === "failed") agent = await updateAgent(pool, agent.id, { launchAttempt: agent.launchAttempt + 1 });
    if (!agent.token) agent = await updateAgent(pool, agent.id, { launch: serialise(params) });
    let cost: LaunchCost;
    try {
      cost = await launchCost(s, agent, params);
    } catch (error) {
      // A deploy that would revert: nothing was sent; the agent stays retryable (and its charter editable).
      if (error instanceof Refusal && error.kind === "chain") throw await fail(s, agent, "chain", error.message);
      throw error;
    }
    const balance = await s.publicClient.getBalance({ address: agent.wallet });
    if (balance < cost.totalWei) {
      throw new Refusal(
        "underfunded",
        `agent wallet ${agent.wallet} holds ${eth(balance)} ETH; the launch needs ${eth(cost.totalWei)} ETH ` +
          `(platform fee ${eth(cost.platformFeeWei)} + estimated gas ${eth(cost.gasWei)} + dev buy ${eth(cost.devBuyWei)}): short by ${eth(cost.totalWei - balance)} ETH`,
      );
    }
    agent = await updateAgent(pool, agent.id, { status: agent.token ? "launched" : "launching", statusReason: null });
    await logOnce(pool, {
      agentId: agent.id,
      token: agent.token,
      decision: "charter-locked",
      reason: `launch begun; charter ${agent.charterHash} is immutable from now on`,
      data: { charterHash: agent.charterHash },
    });
  }

  // 1. Platform fee, once ever.
  if (!agent.feeTx && config.platformLaunchFeeWei > 0n) {
    const out = await sendFromAgent(s, agent, account, `agent:${agent.id}:platform-fee`, "agent-platform-fee", operator, "0x", config.platformLaunchFeeWei);
    if (out.status !== "mined") throw await fail(s, agent, "chain", `platform fee payment ${out.status}: ${reasonOf(out)}`);
    agent = await updateAgent(pool, agent.id, { feeTx: out.receipt.transactionHash });
    await logOnce(pool, {
      agentId: agent.id,
      token: null,
      decision: "platform-fee-paid",
      reason: `paid the platform fee of ${eth(config.platformLaunchFeeWei)} ETH to the operator ${operator}`,
      data: { txHash: out.receipt.transactionHash },
    });
  }

  // 2. Deploy from the agent wallet.
  if (!agent.token) {
    const out = await sendFromAgent(
      s,
      agent,
      account,
      `agent:${agent.id}:deploy:${agent.launchAttempt}`,
      "agent-deploy",
      launcher,
      deployCalldata(s, agent, params),
    );
    if (out.status !== "mined") throw await fail(s, agent, "chain", `deploy reverted: ${launcherReason(reasonOf(out))}`);
    const created = parseTokenCreated(out.receipt, launcher);
    if (created.tokenAdmin !== agent.wallet || created.msgSender !== agent.wallet) {
      throw await fail(s, agent, "chain", `deploy created ${created.token} with admin ${created.tokenAdmin}, not the agent wallet`);
    }
    agent = await updateAgent(pool, agent.id, {
      token: created.token,
      poolId: created.poolId,
      deployTx: out.receipt.transactionHash,
      status: "launched",
      launchedAt: new Date(),
    });
    await logOnce(pool, {
      agentId: agent.id,
      token: created.token,
      decision: "token-deployed",
      reason: `deployed ${params.symbol} through the launcher from the agent wallet`,
      data: { txHash: out.receipt.transactionHash, poolId: created.poolId },
    });
  }
  const token = agent.token!;

  // 3. Dev buy.
  if (params.devBuyWei > 0n && !agent.devBuyTx) {
    // A dev buy already recorded keeps its signed terms; only a new one is quoted.
    const key = `agent:${agent.id}:dev-buy:${agent.launchAttempt}`;
    const existing = await s.pipeline.get(key);
    let plan: SwapPlan | undefined;
    try {
      if (!existing) await waitForDevBuyWindow(s, agent, token);
      plan = existing ? undefined : await devBuyCalldata(s, agent.wallet, token, params.devBuyWei);
    } catch (error) {
      if (error instanceof EngineError && !error.retryable) throw await fail(s, agent, "chain", `dev buy not sent: ${error.message}`);
      throw error;
    }
    if (plan)
      s.log.info(
        {
          agent: agent.id,
          token,
          amountIn: String(plan.amountIn),
          expectedOut: String(plan.expectedOut),
          minOut: String(plan.minOut),
          deadline: Number(plan.deadline),
        },
        "dev buy planned",
      );
    let out = await sendFromAgent(
      s,
      agent,
      account,
      key,
      "agent-dev-buy",
      existing?.to ?? plan!.to,
      existing?.data ?? plan!.data,
      existing?.value ?? plan!.value,
    );
    if (out.status === "reverted") out = { ...out, reason: await swapRevertReason(s.publicClient, out.intent, out.receipt, out.reason) };
    if (out.status !== "mined") throw await fail(s, agent, "chain", `dev buy reverted: ${explainSwapBound(reasonOf(out))}`);
    agent = await updateAgent(pool, agent.id, { devBuyTx: out.receipt.transactionHash });
    await logOnce(pool, {
      agentId: agent.id,
      token,
      decision: "dev-buy",
      reason: `bought the token with ${eth(params.devBuyWei)} ETH`,
      data: { txHash: out.receipt.transactionHash },
    });
  }

  // 4. Enrol with the charter hash (operator).
  if (!agent.enrollTx) {
    const split = charterSplit(agent.charter!);
    const enrolled = await registryEnrollment(s, registry, token);
    let enrollTx: Hex | null = null;
    if (enrolled) {
      if (enrolled.charterHash.toLowerCase() !== agent.charterHash!.toLowerCase()) {
        throw await fail(s, agent, "chain", `token ${token} is enrolled with charter hash ${enrolled.charterHash}, not ${agent.charterHash}`);
      }
      enrollTx = await minedEnrolIntent(s, agent.id);
    } else {
      const pipeline = await s.operatorPipeline();
      const out = await pipeline.send({
        key: `agent:${agent.id}:enroll:${agent.launchAttempt}`,
        kind: "agent-enroll",
        worker: "agent-launch",
        to: registry,
        data: encodeFunctionData({
          abi: registryAbi,
          functionName: "enroll",
          args: [token, agent.owner, split.assetBps, split.perpBps, split.creatorBps, agent.charterHash!],
        }),
      });
      if (out.status !== "mined") throw await fail(s, agent, "chain", `enrolment reverted: ${reasonOf(out)}`);
      enrollTx = out.receipt.transactionHash;
    }
    agent = await updateAgent(pool, agent.id, { enrollTx });
    await logOnce(pool, {
      agentId: agent.id,
      token,
      decision: "enrolled",
      reason: `enrolled in the registry with charter hash ${agent.charterHash}; split ${split.assetBps}/${split.perpBps}/${split.creatorBps} bps locked`,
      data: { txHash: enrollTx, charterHash: agent.charterHash },
    });
  }

  // 5. The activation record, the mandate the workers read, running. The activation credit
  // is the record that this agent's platform fee was paid (amount and transaction): it buys
  // the launch and funds no leg — fees fund the desk and buybacks, never the platform fee.
  const db = dbOf(pool);
  await db
    .insert(agentCredits)
    .values({
      agentId: agent.id,
      kind: "activation",
      currency: "ETH",
      amount: (agent.feeTx ? config.platformLaunchFeeWei : 0n).toString(),
      txHash: agent.feeTx,
    })
    .onConflictDoNothing({ target: [agentCredits.agentId, agentCredits.kind] });
  // The limits the desk and buyback workers read (`mandateFor`).
  const { strategy: _strategy, liquidationBufferBps: _buffer, maxDeskUsdc: _cap, ...limits } = charterMandate(agent.charter!);
  await setTokenMandate(db, token, limits);
  agent = await updateAgent(pool, agent.id, { status: "running", statusReason: null });
  await logOnce(pool, {
    agentId: agent.id,
    token,
    decision: "activated",
    reason: `${activation(agent.feeTx ? config.platformLaunchFeeWei : 0n)}; ${agent.charter!.persona.name} runs the ${strategyWords(agent.charter!)}`,
  });
  s.log.info({ agent: agent.id, token }, "agent launched");
  return { agent, token, poolId: agent.poolId!, txs: { platformFee: agent.feeTx, deploy: agent.deployTx!, devBuy: agent.devBuyTx, enroll: agent.enrollTx } };
}

/** What the activation record says: the platform fee it stands for, and that it funds no leg. */
function activation(feeWei: bigint): string {
  return feeWei > 0n
    ? `activated: the platform fee of ${eth(feeWei)} ETH is recorded as the activation credit (it pays for the launch and funds no leg)`
    : "activated: no platform fee was due";
}

/** The charter's strategy in the words of what the workers do with it. */
function strategyWords(charter: Charter): string {
  const m = charter.mandate.desk;
  return charter.engine.strategy === "hold"
    ? `hold mandate on ${m.market}: the desk only goes long and takes profit only at ${m.takeProfitPct}%`
    : `momentum mandate on ${m.market}: the desk goes long on rising and short on falling momentum, and takes profit at ${m.takeProfitPct}% or early when momentum turns`;
}

function serialise(p: LaunchParams): Record<string, string> {
  return { name: p.name, symbol: p.symbol, image: p.image, description: p.description, devBuyWei: p.devBuyWei.toString() };
}

async function registryEnrollment(s: LaunchServices, registry: Address, token: Address) {
  const enrolled = await s.publicClient.readContract({ address: registry, abi: registryAbi, functionName: "isEnrolled", args: [token] });
  if (!enrolled) return undefined;
  const [, , , , , charterHash] = await s.publicClient.readContract({ address: registry, abi: registryAbi, functionName: "enrollment", args: [token] });
  return { charterHash };
}

async function minedEnrolIntent(s: LaunchServices, agentId: string): Promise<Hex | null> {
  const { txIntents } = tables;
  const [row] = await dbOf(s.pool)
    .select({ txHash: txIntents.txHash })
    .from(txIntents)
    .where(and(like(txIntents.key, `agent:${agentId}:enroll:%`), eq(txIntents.status, "mined")))
    .orderBy(desc(txIntents.id))
    .limit(1);
  return (row?.txHash as Hex | null | undefined) ?? null;
}

/** Resumes every launch a crash interrupted (engine start). Failures stay recorded on their agents. */
export async function resumeAgentLaunches(s: LaunchServices): Promise<{ resumed: string[]; failed: { id: string; error: string }[] }> {
  const resumed: string[] = [];
  const failed: { id: string; error: string }[] = [];
  for (const agent of await unfinishedLaunches(s.pool)) {
    try {
      await launchAgent(s, agent.id);
      resumed.push(agent.id);
    } catch (error) {
      failed.push({ id: agent.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { resumed, failed };
}
