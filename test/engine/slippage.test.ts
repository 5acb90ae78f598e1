/**
 * Bounded swaps on a private devnet: every swap the engine signs carries a minimum output
 * from a fresh quote (SWAP_SLIPPAGE_BPS below it) and a deadline SWAP_DEADLINE_SECONDS after
 * the chain's latest block. A trader who moves the pool in the same block as the engine's
 * buyback makes it revert onchain; the buyback is reported with its reason, its USDC goes
 * back to the protocol leg to the base unit, and the next cycle buys again. The agent's dev
 * buy at launch is bounded the same way.
 */
import {
  type Abi,
  type Address,
  type Hex,
  decodeAbiParameters,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  maxUint256,
  parseAbi,
  parseEther,
  parseGwei,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../common/config.js";
import { createLogger } from "../../common/logger.js";
import { planV3Swap } from "../../core/chain/swap/plan.js";
import { type SwapResult, sendSwap } from "../../core/chain/swap/send.js";
import type { SwapPlan } from "../../core/chain/swap/plan.js";
import { ensureRouterAllowance } from "../../core/chain/erc20.js";
import { readV3PoolState } from "../../core/chain/pool-state.js";
import { devBuyCalldata } from "../../core/launch/agent.js";
import { Q96 } from "../../common/uniswap.js";
import { V3_WETH_USDC_FEE, v3PositionManagerAbi } from "../../devnet/uniswap.js";
import { UNIVERSAL_ROUTER_ABI, routerPlan, v4ExactInSingle } from "../../common/universal-router.js";
import { type Engine, createEngine } from "../../engine/runtime/engine.js";
import { pendingBuybackUsdc } from "../../core/ledger/accumulators.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { Legs } from "../../core/ledger/legs.js";
import { legBalance } from "../../core/ledger/reads.js";
import type { WorkerName } from "../../engine/workers/index.js";
import { type PrivateDevnet, rpc, startPrivateDevnet } from "./devnet.js";

const USDC = 1_000_000n;
const TRADER = 5;
const SLIPPAGE_BPS = 100n;
const DEADLINE_SECONDS = 300n;
let d: PrivateDevnet;
let engine: Engine;
let operator: Address;
let usdcToken: Address;

async function run(name: WorkerName) {
  const outcome = await engine.runOnce(name);
  if (!outcome.ok) throw new Error(`${name} failed: ${outcome.error}`);
  return outcome.result as Record<string, unknown>;
}

/** The minimum outputs a UniversalRouter `execute` carries: V3_SWAP_EXACT_IN's and V4 TAKE_ALL's. */
function routerMinimums(data: Hex): { deadline: bigint; v3: bigint[]; v4: bigint[] } {
  const { args } = decodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, data });
  const [commands, inputs, deadline] = args as [Hex, Hex[], bigint];
  const v3: bigint[] = [];
  const v4: bigint[] = [];
  const bytes = commands
    .slice(2)
    .match(/../g)!
    .map((b) => parseInt(b, 16));
  bytes.forEach((command, i) => {
    if (command === 0x00) {
      const [, , amountOutMin] = decodeAbiParameters(
        [{ type: "address" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }, { type: "bool" }],
        inputs[i]!,
      );
      v3.push(amountOutMin);
    } else if (command === 0x10) {
      const [, params] = decodeAbiParameters([{ type: "bytes" }, { type: "bytes[]" }], inputs[i]!);
      const [, minAmount] = decodeAbiParameters([{ type: "address" }, { type: "uint256" }], params[params.length - 1]!);
      v4.push(minAmount);
    }
  });
  return { deadline, v3, v4 };
}

/** Sends a trader's buy without waiting for it to be mined, with a tip that puts it first in the block. */
async function sendBuyFirst(trader: number, token: Address, usdcIn: bigint): Promise<Hex> {
  const pool = await d.pool(token);
  const zeroForOne = pool.poolKey.currency0 === pool.pairedToken;
  const { commands, inputs } = routerPlan([v4ExactInSingle({ poolKey: pool.poolKey, zeroForOne, amountIn: usdcIn, amountOutMin: 0n, payerIsUser: true })]);
  const ctx = d.as(trader);
  return ctx.walletClient.sendTransaction({
    account: ctx.account,
    chain: ctx.walletClient.chain,
    to: d.c.universalRouter!,
    data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, functionName: "execute", args: [commands, inputs, 2n ** 40n] }),
    gas: 1_000_000n,
    maxFeePerGas: parseGwei("500"),
    maxPriorityFeePerGas: parseGwei("200"),
  });
}

const v3Slot0Abi = parseAbi(["function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)"]);
const minimumOutOf = (quote: bigint) => (quote * (10_000n - SLIPPAGE_BPS)) / 10_000n;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  d = await startPrivateDevnet();
  const config = d.config();
  operator = config.operator!;
  usdcToken = getAddress(d.c.usdcPairedToken!);
  engine = await createEngine({ config, log: createLogger("engine", "error"), pipeline: { pollMs: 50, maxWaitMs: 30_000 } });
}, 240_000);

afterAll(async () => {
  await rpc(d.rpcUrl, "evm_setAutomine", [true]).catch(() => {});
  await engine?.stop();
  await d?.stop();
});

describe("swap bounds", () => {
  it("SWAP_SLIPPAGE_BPS and SWAP_DEADLINE_SECONDS default to 1% and 5 minutes and are range-checked", () => {
    const config = d.config();
    expect(config.swapSlippageBps).toBe(100);
    expect(config.swapDeadlineSeconds).toBe(300);
    expect(d.config({ SWAP_SLIPPAGE_BPS: "250", SWAP_DEADLINE_SECONDS: "60" })).toMatchObject({ swapSlippageBps: 250, swapDeadlineSeconds: 60 });
    for (const [variable, value] of [
      ["SWAP_SLIPPAGE_BPS", "0"],
      ["SWAP_SLIPPAGE_BPS", "5001"],
      ["SWAP_SLIPPAGE_BPS", "1.5"],
      ["SWAP_DEADLINE_SECONDS", "29"],
      ["SWAP_DEADLINE_SECONDS", "3601"],
    ] as const) {
      expect(() => loadConfig(d.env({ [variable]: value }))).toThrow(ConfigError);
      expect(() => loadConfig(d.env({ [variable]: value }))).toThrow(new RegExp(`^${variable}: expected an integer`));
    }
  });

  it("an asset purchase carries a minimum from a fresh quote and a deadline after the latest block", async () => {
    await d.buy(TRADER, usdcToken, 8_000n * USDC);
    await run("fee-claimer");
    const asset = await run("asset-engine");
    const [purchase] = asset.purchases as { id: number; status: string }[];
    expect(purchase!.status).toBe("done");
    const { rows } = await engine.ctx.pool.query("SELECT data, block_number FROM engine.tx_intents WHERE key = $1", [`asset-purchase:${purchase!.id}:swap`]);
    const terms = routerMinimums(rows[0].data);
    const bought = BigInt((await engine.ctx.pool.query("SELECT asset_bought FROM engine.asset_purchases WHERE id = $1", [purchase!.id])).rows[0].asset_bought);
    expect(terms.v3).toHaveLength(1);
    expect(terms.v3[0]!).toBeGreaterThan(0n);
    // Nothing moved the pool between quote and execution: the fill is the quote, above its bound.
    expect(bought).toBeGreaterThanOrEqual(terms.v3[0]!);
    expect(terms.v3[0]!).toBeGreaterThanOrEqual((bought * (10_000n - SLIPPAGE_BPS)) / 10_000n - 1n);
    // The deadline is the chain's time at planning plus 300 s (the swap mined in the next block).
    const mined = await d.as(1).publicClient.getBlock({ blockNumber: BigInt(rows[0].block_number) });
    expect(terms.deadline - mined.timestamp).toBeLessThanOrEqual(DEADLINE_SECONDS);
    expect(terms.deadline - mined.timestamp).toBeGreaterThanOrEqual(DEADLINE_SECONDS - 30n);
  });

  it("a buyback undercut in its own block reverts onchain, is reported, refunded to the base unit, and buys again next cycle", async () => {
    const pending = await pendingBuybackUsdc(engine.ctx.db, Infinity);
    expect(pending).toBeGreaterThanOrEqual(d.config().protocolBuybackMinUsdc);
    const burnedBefore = await d.balance(d.protocolToken, "0x000000000000000000000000000000000000dEaD");

    // Blocks only when the test says so: the engine quotes and signs against the current
    // pool; a trader's large buy lands before it in the same block.
    await rpc(d.rpcUrl, "evm_setAutomine", [false]);
    let cycle: ReturnType<typeof engine.runOnce> | undefined;
    try {
      cycle = engine.runOnce("buyback-engine");
      const swap = await waitFor("the buyback swap broadcast", async () => {
        const { rows } = await engine.ctx.pool.query("SELECT key, data FROM engine.tx_intents WHERE key LIKE 'buyback:%:swap' AND status = 'broadcast'");
        return rows[0] as { key: string; data: Hex } | undefined;
      });
      const terms = routerMinimums(swap.data);
      expect(terms.v4).toHaveLength(1);
      expect(terms.v4[0]!).toBeGreaterThan(0n);
      await sendBuyFirst(TRADER, d.protocolToken, 3_000n * USDC);
      await rpc(d.rpcUrl, "evm_mine");
    } finally {
      await rpc(d.rpcUrl, "evm_setAutomine", [true]);
    }
    const outcome = await cycle!;
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);

    const { rows: buybacks } = await engine.ctx.pool.query("SELECT id, status, error, amount_in FROM engine.buybacks WHERE kind = 'protocol' ORDER BY id");
    expect(buybacks).toHaveLength(1);
    expect(buybacks[0]).toMatchObject({ status: "failed", amount_in: pending.toString() });
    expect(buybacks[0].error).toMatch(/V4TooLittleReceived\(\d+, \d+\).*the price moved beyond the slippage bound/);
    const { rows: intents } = await engine.ctx.pool.query("SELECT status, block_number FROM engine.tx_intents WHERE key = $1", [
      `buyback:${buybacks[0].id}:swap`,
    ]);
    expect(intents[0].status).toBe("reverted");
    const { rows: log } = await engine.ctx.pool.query("SELECT reason FROM engine.agent_log WHERE decision = 'buyback-failed'");
    expect(log).toHaveLength(1);
    expect(log[0].reason).toMatch(/swap did not land: .*V4TooLittleReceived.*slippage bound/);

    // Nothing lost: the protocol leg holds exactly what it held, nothing was bought or burned.
    expect(await pendingBuybackUsdc(engine.ctx.db, Infinity)).toBe(pending);
    expect(await legBalance(engine.ctx.db, Legs.protocol)).toBe(pending);
    expect(await d.balance(d.protocolToken, operator)).toBe(0n);
    expect(await checkLedgerInvariants(engine.ctx.db)).toEqual({ ok: true, violations: [] });

    // The next cycle quotes the moved pool afresh and buys.
    const again = await run("buyback-engine");
    const [done] = again.buybacks as { status: string; amountIn: string; tokensBought: string; tokensBurned: string }[];
    expect(done).toMatchObject({ status: "done", amountIn: pending.toString() });
    expect(BigInt(done!.tokensBought)).toBeGreaterThan(0n);
    expect(done!.tokensBurned).toBe(done!.tokensBought);
    expect(await pendingBuybackUsdc(engine.ctx.db, Infinity)).toBe(0n);
    expect((await d.balance(d.protocolToken, "0x000000000000000000000000000000000000dEaD")) - burnedBefore).toBe(BigInt(done!.tokensBurned));
    expect(await checkLedgerInvariants(engine.ctx.db)).toEqual({ ok: true, violations: [] });
  });

  it("the agent dev buy carries non-zero minimums from a fresh quote and fills above them", async () => {
    const config = d.config();
    const buyer = d.as(2);
    const plan = await devBuyCalldata({ config, publicClient: buyer.publicClient }, buyer.account.address, usdcToken, parseEther("0.01"));
    const terms = routerMinimums(plan.data);
    expect(plan.value).toBe(parseEther("0.01"));
    // One atomic route: its last hop carries the bound (the inner WETH → USDC hop needs none).
    expect(terms.v4).toEqual([plan.minOut]);
    expect(plan.minOut).toBeGreaterThan(0n);
    expect(plan.minOut).toBe((plan.expectedOut * (10_000n - SLIPPAGE_BPS)) / 10_000n);
    const latest = await buyer.publicClient.getBlock();
    expect(terms.deadline).toBe(latest.timestamp + DEADLINE_SECONDS);

    const before = await buyer.read<bigint>(usdcToken, erc20Abi, "balanceOf", [buyer.account.address]);
    const hash = await buyer.walletClient.sendTransaction({
      account: buyer.account,
      chain: buyer.walletClient.chain,
      to: plan.to,
      data: plan.data,
      value: plan.value,
    });
    const receipt = await buyer.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const got = (await buyer.read<bigint>(usdcToken, erc20Abi, "balanceOf", [buyer.account.address])) - before;
    expect(got).toBeGreaterThanOrEqual(plan.minOut);

    // The same terms after the pool moved by more than the bound revert at simulation.
    await d.buy(TRADER, usdcToken, 20_000n * USDC);
    await expect(buyer.publicClient.call({ account: buyer.account.address, to: plan.to, data: plan.data, value: plan.value })).rejects.toThrow();
  });

  it("a swap that runs out of gas is planned again (a fresh quote) and sent once more with twice the limit; asked again, it answers with that retry", async () => {
    // A stand-in for a pool that moved between the estimate and the block: a "swap" whose
    // target loops `slot 0` times, raised by a trader's transaction in the same block. The
    // retry logic is the swap module's own; the plan is asked for once per intent.
    //   CALLDATASIZE ?→set; n = SLOAD(0); while (n) n--; STOP; set: SSTORE(0, CALLDATALOAD(0))
    const sink = getAddress("0x000000000000000000000000000000000000ca70");
    await rpc(d.rpcUrl, "anvil_setCode", [sink, "0x366016576000545b801560145760019003600756" + "5b00" + "5b60003560005500"]);
    const usdc = getAddress(d.c.usdc!);
    await ensureRouterAllowance(engine.ctx, usdc, "buyback-engine");
    const plans: string[] = [];
    const plan = async () => {
      plans.push(`plan ${plans.length + 1}`);
      return {
        route: "v4",
        currencyIn: usdc,
        tokenOut: usdcToken,
        amountIn: 1n,
        expectedOut: 0n,
        minOut: 0n,
        impactBps: 0,
        deadline: 2n ** 40n,
        to: sink,
        data: "0x",
        value: 0n,
      } as SwapPlan;
    };
    const request = { key: "test:oog-swap", worker: "buyback-engine", tokenOut: usdcToken, currencyIn: usdc, plan };
    await rpc(d.rpcUrl, "evm_setAutomine", [false]);
    let sending: Promise<SwapResult> | undefined;
    try {
      sending = sendSwap(engine.ctx, request);
      await waitFor("the swap broadcast", async () => {
        const { rows } = await engine.ctx.pool.query("SELECT 1 FROM engine.tx_intents WHERE key = 'test:oog-swap' AND status = 'broadcast'");
        return rows[0];
      });
      const trader = d.as(7);
      await trader.walletClient.sendTransaction({
        account: trader.account,
        chain: trader.walletClient.chain,
        to: sink,
        data: `0x${(20_000).toString(16).padStart(64, "0")}`,
        gas: 200_000n,
        maxFeePerGas: parseGwei("500"),
        maxPriorityFeePerGas: parseGwei("200"),
      });
      await rpc(d.rpcUrl, "evm_mine");
    } finally {
      await rpc(d.rpcUrl, "evm_setAutomine", [true]);
    }
    const result = await sending!;
    expect(result.outcome.status).toBe("mined");
    expect(result.outcome.intent.key).toBe("test:oog-swap:gas-retry");
    expect(plans).toEqual(["plan 1", "plan 2"]);
    const { rows } = await engine.ctx.pool.query(
      "SELECT key, kind, status, gas_limit::text AS gas, revert_reason FROM engine.tx_intents WHERE key LIKE 'test:oog-swap%' ORDER BY id",
    );
    expect(rows.map((r) => [r.key, r.kind, r.status])).toEqual([
      ["test:oog-swap", "swap", "reverted"],
      ["test:oog-swap:gas-retry", "swap", "mined"],
    ]);
    expect(rows[0].revert_reason).toMatch(/^out of gas at limit \d+/);
    expect(BigInt(rows[1].gas)).toBeGreaterThanOrEqual(2n * BigInt(rows[0].gas));
    // A restart asks again: nothing planned or sent, the retry's outcome comes back.
    const again = await sendSwap(engine.ctx, request);
    expect(again.outcome.intent.txHash).toBe(result.outcome.intent.txHash);
    expect(plans).toHaveLength(2);
  });

  it("a v3 swap is quoted by running it: exact when it crosses out of a concentrated position, where the in-range maths would promise more than it fills", async () => {
    // A liquidity provider (funded with USDC at deploy) concentrates WETH/USDC liquidity a tick
    // spacing or two either side of the price, on top of the pool's full-range position.
    const lp = d.as(6);
    const pool = d.c.v3WethUsdcPool!;
    const [weth, usdc] = [getAddress(d.c.weth!), getAddress(d.c.usdc!)];
    const slot0 = await lp.read<readonly [bigint, number]>(pool, v3Slot0Abi, "slot0");
    const spacing = V3_WETH_USDC_FEE === 500 ? 10 : 60;
    const aligned = Math.floor(slot0[1] / spacing) * spacing;
    const [lower, upper] = [aligned - spacing, aligned + 2 * spacing];
    await lp.write(weth, parseAbi(["function deposit() payable"]), "deposit", [], parseEther("500"));
    for (const token of [weth, usdc]) await lp.write(token, erc20Abi, "approve", [d.c.v3PositionManager!, maxUint256]);
    const [token0, token1] = BigInt(weth) < BigInt(usdc) ? [weth, usdc] : [usdc, weth];
    const [amount0, amount1] = token0 === weth ? [parseEther("150"), 500_000n * USDC] : [500_000n * USDC, parseEther("150")];
    await lp.write(d.c.v3PositionManager!, v3PositionManagerAbi as Abi, "mint", [
      {
        token0,
        token1,
        fee: V3_WETH_USDC_FEE,
        tickLower: lower,
        tickUpper: upper,
        amount0Desired: amount0,
        amount1Desired: amount1,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: lp.account.address,
        deadline: 2n ** 40n,
      },
    ]);

    // The operator converts 300 WETH: more than the concentrated position holds on its side.
    const amountIn = parseEther("300");
    await lp.write(weth, erc20Abi, "transfer", [operator, amountIn]);
    const state = await readV3PoolState(d.as(1).publicClient, pool);
    const zeroForOne = token0 === weth;
    // What constant in-range liquidity would pay (the old estimate): far more than the pool can.
    const x = (amountIn * (1_000_000n - BigInt(state.fee))) / 1_000_000n;
    const [L, sp] = [state.liquidity, state.sqrtPriceX96];
    const next = zeroForOne ? (L * sp * Q96) / (L * Q96 + x * sp) : sp + (x * Q96) / L;
    const inRange = zeroForOne ? (L * (sp - next)) / Q96 : (L * Q96 * (next - sp)) / (sp * next);

    const result = await sendSwap(engine.ctx, {
      key: "test:v3-crossing",
      worker: "fee-claimer",
      tokenOut: usdc,
      currencyIn: weth,
      plan: () => planV3Swap(engine.ctx, { pool, tokenIn: weth, amountIn }),
    });
    expect(result.outcome.status).toBe("mined");
    const plan = result.plan!;
    // Nothing else moved the pool: the fill is the quote to the base unit.
    expect(result.amountOut).toBe(plan.expectedOut);
    expect(plan.minOut).toBe((plan.expectedOut * (10_000n - SLIPPAGE_BPS)) / 10_000n);
    const after = await lp.read<readonly [bigint, number]>(pool, v3Slot0Abi, "slot0");
    expect(after[1] < lower || after[1] >= upper, `tick ${after[1]} left [${lower}, ${upper})`).toBe(true);
    // A minimum below the in-range promise would have been above the fill: that swap reverts.
    expect(inRange).toBeGreaterThan(plan.expectedOut);
    expect(minimumOutOf(inRange)).toBeGreaterThan(result.amountOut);
    expect(await checkLedgerInvariants(engine.ctx.db)).toEqual({ ok: true, violations: [] });
  });
});
