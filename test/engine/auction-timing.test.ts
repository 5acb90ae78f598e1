/**
 * The engine's timing around a launch's sniper auction, as the real module runs it: a sniper
 * wins all five rounds (launch + 2, + 4, …, + 10, each opening the next), then the fee decays
 * from the last round's auction. At every block of it the engine's quote of the dev buy
 * (planEthToToken, as core/launch/agent.ts plans it) refuses, and the dev buy's wait
 * (waitForSniperAuction) holds until the decay is over; the dev buy then lands in no auction
 * block and pays the pool's own fee, no sniper fee.
 */
import { type Abi, type Address, type Hex, type TransactionReceipt, erc20Abi, maxUint256, parseAbi, parseEventLogs } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { clankerHookAbi, encodeAuctionBid, sniperAuctionAbi } from "../../common/abis/clanker-hook.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { DEVNET_CHAIN_ID } from "../../common/config.js";
import { DEFAULT_SNIPER_FEES } from "../../common/deploy-config.js";
import type { PoolKey } from "../../common/uniswap.js";
import { sniperAuctionStatus } from "../../common/sniper-auction.js";
import { waitForSniperAuction } from "../../core/chain/auction.js";
import { planEthToToken } from "../../core/chain/swap/plan.js";
import { createDevnetContext } from "../../devnet/context.js";
import { buyToken, ensureRouterApproval, marketContracts } from "../../devnet/market.js";
import { devnetPrivateKey } from "../../devnet/protocol.js";
import { launchToken } from "../helpers/actions.js";
import { testEnv } from "../helpers/env.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const m = marketContracts(deployments);
const sniper = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(1));
const devBuyer = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(2));
const operator = deployments.operator;
const wethAbi = parseAbi(["function deposit() payable"]);
const SECONDS = BigInt(DEFAULT_SNIPER_FEES.secondsToDecay);

const rpc = <T = unknown>(method: string, params: unknown[] = []) =>
  (sniper.publicClient.request as (a: { method: string; params: unknown[] }) => Promise<T>)({ method, params });
const head = () => sniper.publicClient.getBlock({ blockTag: "latest" });

describe("the engine's timing on five won rounds, then the decay", () => {
  let key: PoolKey;
  let token: Address;
  let launchBlock: bigint;
  const auctionBlocks: bigint[] = [];
  const wins: TransactionReceipt[] = [];

  beforeAll(async () => {
    await sniper.write(c.weth!, wethAbi, "deposit", [], 10n ** 17n);
    await sniper.write(c.weth!, erc20Abi, "approve", [c.mevModule!, maxUint256]);
    await ensureRouterApproval(sniper, m, c.usdc!, maxUint256 / 2n);
  });

  /** The dev buy, planned as the engine plans it (0.001 ETH into the launched token). */
  const planDevBuy = () =>
    planEthToToken(devBuyer.publicClient, {
      contracts: { weth: c.weth!, usdc: c.usdc!, v3WethUsdcPool: c.v3WethUsdcPool!, v4PoolManager: c.v4PoolManager!, universalRouter: c.universalRouter! },
      payer: devBuyer.account.address,
      token,
      poolKey: key,
      amountInWei: 10n ** 15n,
      bounds: { slippageBps: 500, deadlineSeconds: 600 },
      secondsToDecay: DEFAULT_SNIPER_FEES.secondsToDecay,
    });

  /** The dev buy's quote as the engine plans it now: "refused" while the auction or the decay runs. */
  const quote = async () => {
    try {
      await planDevBuy();
      return "quoted";
    } catch (error) {
      return (error as { code?: string }).code === "sniper-auction" ? "refused" : `failed: ${String(error)}`;
    }
  };

  it("refuses every quote and holds the dev buy through the five rounds and the decay; the dev buy then pays the pool's fee", async () => {
    const launched = await launchToken(sniper, c, { name: "Five Rounds", symbol: "FIVE", operator, creator: operator, auction: "keep" });
    token = launched.token;
    launchBlock = launched.receipt.blockNumber;
    key = (await sniper.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [token])).poolKey;
    const poolId = launched.poolId;

    let cleared: { block: bigint; timestamp: bigint } | undefined;
    const reasons: string[] = [];
    const waiting = waitForSniperAuction(devBuyer.publicClient, {
      key,
      secondsToDecay: DEFAULT_SNIPER_FEES.secondsToDecay,
      pollMs: 25,
      timeoutMs: 120_000,
      onWait: (reason) => reasons.push(reason),
    }).then(async () => {
      const b = await head();
      cleared = { block: b.number, timestamp: b.timestamp };
    });

    // The five rounds: before each auction block the quote refuses; the sniper bids in it.
    await rpc("evm_mine");
    for (let round = 1n; round <= 5n; round++) {
      expect(await quote(), `round ${round}, block ${(await head()).number}`).toBe("refused");
      expect(cleared).toBeUndefined();
      const gasPeg = await sniper.read<bigint>(c.mevModule!, sniperAuctionAbi as Abi, "gasPeg", [poolId]);
      const pool = { token, pairedToken: c.usdc!, poolKey: key };
      const r = await sniper.publicClient.getTransactionReceipt({
        hash: await buyToken(sniper, m, pool, 1_000_000n, encodeAuctionBid(sniper.account.address), gasPeg + 10n),
      });
      const won = parseEventLogs({ abi: sniperAuctionAbi, eventName: "AuctionWon", logs: r.logs });
      expect(won.map((w) => w.args.round)).toEqual([round]);
      auctionBlocks.push(r.blockNumber);
      wins.push(r);
      expect(await quote(), `after round ${round}`).toBe("refused");
      if (round < 5n) await rpc("evm_mine");
    }
    expect(auctionBlocks).toEqual([2n, 4n, 6n, 8n, 10n].map((n) => launchBlock + n));
    const ended = parseEventLogs({ abi: sniperAuctionAbi, eventName: "AuctionEnded", logs: wins[4]!.logs });
    expect(ended).toHaveLength(1);

    // The decay from the last round's auction: a block every 4 s; refused until it is over.
    const T5 = (await sniper.publicClient.getBlock({ blockNumber: wins[4]!.blockNumber })).timestamp;
    for (let t = T5 + 4n; t <= T5 + SECONDS; t += 4n) {
      await rpc("evm_setNextBlockTimestamp", [Number(t)]);
      await rpc("evm_mine");
      await new Promise((resolve) => setTimeout(resolve, 100)); // the wait polls every 25 ms
      expect(await quote(), `${t - T5} s after the last auction`).toBe("refused");
      expect(cleared, `${t - T5} s after the last auction`).toBeUndefined();
    }
    await rpc("evm_setNextBlockTimestamp", [Number(T5 + SECONDS + 1n)]);
    await rpc("evm_mine");
    await waiting;
    expect(cleared!.timestamp).toBeGreaterThan(T5 + SECONDS);
    expect(reasons.some((r) => r.includes("auction"))).toBe(true);
    expect(reasons.some((r) => r.includes("decays"))).toBe(true);
    expect(await sniperAuctionStatus(devBuyer.publicClient, key, DEFAULT_SNIPER_FEES.secondsToDecay)).toEqual({ over: true });

    // The dev buy as planned now: in no auction block, at the pool's own fee (1%), no sniper fee.
    expect(await quote()).toBe("quoted");
    const plan = await planDevBuy();
    const hash = await devBuyer.walletClient.sendTransaction({
      account: devBuyer.account,
      chain: devBuyer.walletClient.chain,
      to: plan.to,
      data: plan.data,
      value: plan.value,
    });
    const devBuy = await devBuyer.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(devBuy.status).toBe("success");
    expect(auctionBlocks).not.toContain(devBuy.blockNumber);
    const swap = parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: devBuy.logs }).find((l) => l.args.id === (poolId as Hex));
    expect(swap?.args.fee).toBe(10_000);
    const hookLogs = parseEventLogs({ abi: clankerHookAbi, logs: devBuy.logs.filter((l) => l.address.toLowerCase() === c.clankerHook!.toLowerCase()) });
    expect(hookLogs.map((l) => l.eventName)).not.toContain("MevModuleSetFee");
    expect(hookLogs.map((l) => l.eventName)).toContain("MevModuleDisabled");
  });
});
