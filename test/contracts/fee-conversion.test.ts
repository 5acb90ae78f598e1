/**
 * Fee preferences applied as production applies them (reference/production.md §4): a reward
 * recipient whose `FeeIn` asks for the other currency has its share converted in the token's own
 * pool, through the UniversalRouter when the collection runs outside a swap (the pool's
 * `Swap.sender` is the router) and on the PoolManager directly when the hook collects inside a
 * swap (`Swap.sender` is the locker). Recipients who keep the currency get `rewardBps / 10000` of
 * it; of the conversion's output each converter but the last gets `rewardBps / 10000` and the last
 * one the rest. `ClaimedRewards` and the fee locker's `StoreTokens` agree to the base unit.
 */
import { type Abi, type Address, type Hex, type TransactionReceipt, erc20Abi, maxUint256, parseEventLogs } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { FeeIn, clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../../common/config.js";
import type { RewardRecipient } from "../../common/deploy-config.js";
import { type PoolKey, poolIdOf } from "../../common/uniswap.js";
import { createDevnetContext } from "../../devnet/context.js";
import { type MarketPool, buyToken, ensureRouterApproval, marketContracts, sellToken } from "../../devnet/market.js";
import { devnetPrivateKey } from "../../devnet/protocol.js";
import { launchToken } from "../helpers/actions.js";
import { testEnv } from "../helpers/env.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const m = marketContracts(deployments);
const trader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(3));
const operator = deployments.operator;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

const receipt = (hash: Hex) => trader.publicClient.getTransactionReceipt({ hash });
const balanceOf = (token: Address, owner: Address) => trader.read<bigint>(token, erc20Abi, "balanceOf", [owner]);
const balanceAt = (token: Address, owner: Address, blockNumber: bigint) =>
  trader.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner], blockNumber });
const collect = async (token: Address) => receipt(await trader.write(c.lpLocker!, clankerLpLockerAbi as Abi, "collectRewards", [token]));

type Claimed = { token: Address; amount0: bigint; amount1: bigint; rewards0: readonly bigint[]; rewards1: readonly bigint[] };
type Swapped = { token: Address; rewardToken: Address; amountSwapped: bigint; swappedToken: Address; amountOut: bigint };

function lockerEvents(r: TransactionReceipt) {
  const locker = parseEventLogs({ abi: clankerLpLockerAbi, logs: r.logs.filter((l) => l.address.toLowerCase() === c.lpLocker!.toLowerCase()) });
  return {
    claimed: locker.filter((l) => l.eventName === "ClaimedRewards").map((l) => l.args as Claimed),
    swapped: locker.filter((l) => l.eventName === "FeesSwapped").map((l) => l.args as Swapped),
    stores: parseEventLogs({ abi: clankerFeeLockerAbi, eventName: "StoreTokens", logs: r.logs }).map((l) => l.args),
  };
}

/** The v4 `Swap`s of a pool in a receipt: who called the PoolManager, and the amounts. */
const swapsOf = (r: TransactionReceipt, poolId: Hex) =>
  parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: r.logs })
    .filter((l) => l.args.id === poolId)
    .map((l) => l.args);

const share = (bps: number, amount: bigint) => (BigInt(bps) * amount) / 10_000n;

/**
 * production.md §4 as a model: one currency's `gross` among recipients of preferences `prefs`.
 * Keepers (preference other than `convertTo`) get `bps/10000` each; when nobody converts, the last
 * keeper also gets the dust. Otherwise the rest is converted, and of its `out` every converter but
 * the last gets `bps/10000`, the last the remainder.
 */
function modelSplit(prefs: readonly number[], bps: readonly number[], convertTo: number, gross: bigint, out: bigint) {
  const kept = prefs.map(() => 0n);
  const converted = prefs.map(() => 0n);
  if (gross === 0n) return { kept, converted, toConvert: 0n };
  const converters = prefs.flatMap((p, i) => (p === convertTo ? [i] : []));
  const keepers = prefs.flatMap((p, i) => (p === convertTo ? [] : [i]));
  let rest = gross;
  for (const i of keepers) {
    kept[i] = share(bps[i]!, gross);
    rest -= kept[i]!;
  }
  if (converters.length === 0) {
    kept[keepers.at(-1)!]! += rest;
    return { kept, converted, toConvert: 0n };
  }
  let given = 0n;
  for (const i of converters.slice(0, -1)) {
    converted[i] = share(bps[i]!, out);
    given += converted[i]!;
  }
  converted[converters.at(-1)!] = out - given;
  return { kept, converted, toConvert: rest };
}

/** Fees the collection took out of the positions: the PoolManager's transfers to the locker before any swap of the receipt. */
function collectedFees(r: TransactionReceipt, currency: Address): bigint {
  const swapTopic = r.logs.findIndex(
    (l) => l.address.toLowerCase() === c.v4PoolManager!.toLowerCase() && parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: [l] }).length > 0,
  );
  const before = swapTopic < 0 ? r.logs : r.logs.slice(0, swapTopic);
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: before.filter((l) => l.address.toLowerCase() === currency.toLowerCase()) })
    .filter((l) => l.args.from.toLowerCase() === c.v4PoolManager!.toLowerCase() && l.args.to.toLowerCase() === c.lpLocker!.toLowerCase())
    .reduce((sum, l) => sum + l.args.value, 0n);
}

describe("fee preferences: conversions as production makes them", () => {
  // Keeper (Both), two converters to the paired token, one converter to the clanker token.
  const keeper = fresh();
  const paired1 = fresh();
  const paired2 = fresh();
  const clanker = fresh();
  const rewards: RewardRecipient[] = [
    { admin: operator, recipient: keeper, bps: 5_000, feeIn: FeeIn.Both },
    { admin: operator, recipient: paired1, bps: 3_000, feeIn: FeeIn.Paired },
    { admin: operator, recipient: paired2, bps: 1_500, feeIn: FeeIn.Paired },
    { admin: operator, recipient: clanker, bps: 500, feeIn: FeeIn.Clanker },
  ];
  const bps = rewards.map((r) => r.bps);
  let pool: MarketPool;
  let poolId: Hex;
  let usdcIs0: boolean;
  const usdcOf = (e: Claimed) => (usdcIs0 ? e.rewards0 : e.rewards1);
  const tokenOf = (e: Claimed) => (usdcIs0 ? e.rewards1 : e.rewards0);

  beforeAll(async () => {
    await ensureRouterApproval(trader, m, c.usdc!, maxUint256 / 2n);
    const launched = await launchToken(trader, c, { name: "Preferences", symbol: "PREF", operator, creator: keeper, rewards });
    const info = await trader.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [launched.token]);
    pool = { token: launched.token, pairedToken: c.usdc!, poolKey: info.poolKey };
    poolId = poolIdOf(info.poolKey);
    usdcIs0 = info.poolKey.currency0 === c.usdc;
  });

  const prefs: number[] = rewards.map((r) => r.feeIn);

  /** StoreTokens of a receipt, summed per (recipient, currency), equal the ClaimedRewards arrays. */
  function expectStoresMatch(r: TransactionReceipt) {
    const { claimed, stores } = lockerEvents(r);
    const stored = (owner: Address, currency: Address) =>
      stores.filter((s) => s.sender === c.lpLocker && s.feeOwner === owner && s.token === currency).reduce((sum, s) => sum + s.amount, 0n);
    rewards.forEach((reward, i) => {
      expect(stored(reward.recipient, c.usdc!), `USDC stored for slot ${i}`).toBe(claimed.reduce((sum, e) => sum + usdcOf(e)[i]!, 0n));
      expect(stored(reward.recipient, pool.token), `token stored for slot ${i}`).toBe(claimed.reduce((sum, e) => sum + tokenOf(e)[i]!, 0n));
    });
    for (const e of claimed) {
      expect(e.amount0).toBe(e.rewards0.reduce((a, b) => a + b, 0n));
      expect(e.amount1).toBe(e.rewards1.reduce((a, b) => a + b, 0n));
    }
  }

  /**
   * The receipt's one collection split exactly as the model says, from the fees it took out of the
   * positions and the outputs its conversions reported; the locker keeps nothing.
   */
  async function expectProductionSplit(r: TransactionReceipt) {
    const { claimed, swapped } = lockerEvents(r);
    expect(claimed).toHaveLength(1);
    const grossUsdc = collectedFees(r, c.usdc!);
    const grossToken = collectedFees(r, pool.token);
    const fromUsdc = swapped.find((e) => e.rewardToken === c.usdc);
    const fromToken = swapped.find((e) => e.rewardToken === pool.token);
    const usdcModel = modelSplit(prefs, bps, FeeIn.Clanker, grossUsdc, fromUsdc?.amountOut ?? 0n);
    const tokenModel = modelSplit(prefs, bps, FeeIn.Paired, grossToken, fromToken?.amountOut ?? 0n);

    expect(fromUsdc?.amountSwapped ?? 0n, "USDC handed to the conversion").toBe(usdcModel.toConvert);
    expect(fromToken?.amountSwapped ?? 0n, "token handed to the conversion").toBe(tokenModel.toConvert);
    if (fromUsdc) expect(fromUsdc).toMatchObject({ token: pool.token, swappedToken: pool.token });
    if (fromToken) expect(fromToken).toMatchObject({ token: pool.token, swappedToken: c.usdc });
    expect(swapped).toHaveLength((fromUsdc ? 1 : 0) + (fromToken ? 1 : 0));
    expect(usdcOf(claimed[0]!)).toEqual(usdcModel.kept.map((v, i) => v + tokenModel.converted[i]!));
    expect(tokenOf(claimed[0]!)).toEqual(tokenModel.kept.map((v, i) => v + usdcModel.converted[i]!));
    expectStoresMatch(r);
    // The locker keeps nothing of what it collected or converted (its launch dust, if any, stays as it was).
    for (const currency of [c.usdc!, pool.token]) {
      expect(await balanceAt(currency, c.lpLocker!, r.blockNumber), `locker ${currency}`).toBe(await balanceAt(currency, c.lpLocker!, r.blockNumber - 1n));
    }
    return { grossUsdc, grossToken, fromUsdc, fromToken, claimed: claimed[0]! };
  }

  it("outside a swap: the paired side converts to the token through the UniversalRouter for the FeeIn.Clanker recipient", async () => {
    await buyToken(trader, m, pool, 2_000_000_000n);
    const r = await collect(pool.token);
    const { grossUsdc, fromUsdc, claimed } = await expectProductionSplit(r);
    expect(grossUsdc).toBeGreaterThan(0n);
    expect(fromUsdc!.amountOut).toBeGreaterThan(0n);
    // The only converter into the token is also the last one: it receives the whole output.
    expect(tokenOf(claimed)[3]).toBe(fromUsdc!.amountOut);
    // Every conversion is a pool swap whose sender is the UniversalRouter.
    const swaps = swapsOf(r, poolId);
    expect(swaps.length).toBeGreaterThan(0);
    expect(swaps.every((s) => s.sender === c.universalRouter)).toBe(true);
  });

  // Before the token side converts outside a swap: with a USDC converter, the USDC dust the sell's nested
  // conversion leaves would make the router's conversion yield 0 and the whole collection revert
  // `V4TooLittleReceived(1, 0)`, as production's.
  it("a recipient switching to FeeIn.Both keeps its currency from then on: no USDC conversion, the last keeper takes the dust", async () => {
    const admin = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
    const updated = await receipt(await admin.write(c.lpLocker!, clankerLpLockerAbi as Abi, "updateFeePreference", [pool.token, 3n, FeeIn.Both]));
    const [event] = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "FeePreferenceUpdated", logs: updated.logs });
    expect(event!.args).toEqual({ token: pool.token, rewardIndex: 3n, oldFeePreference: FeeIn.Clanker, newFeePreference: FeeIn.Both });
    prefs[3] = FeeIn.Both;

    await expectProductionSplit(await receipt(await buyToken(trader, m, pool, 700_000_000n)));
    const r = await collect(pool.token);
    const { grossUsdc, fromUsdc, claimed } = await expectProductionSplit(r);
    expect(grossUsdc).toBeGreaterThan(0n);
    expect(fromUsdc).toBeUndefined();
    // Slot 3 is now the last keeper of USDC: its bps share plus the rounding dust.
    const others = share(bps[0]!, grossUsdc) + share(bps[1]!, grossUsdc) + share(bps[2]!, grossUsdc);
    expect(usdcOf(claimed)[3]).toBe(grossUsdc - others);
  });

  it("outside a swap: the token side converts for the FeeIn.Paired recipients, rewardBps/10000 of the output each and the rest to the last", async () => {
    const tokensIn = (await balanceOf(pool.token, trader.account.address)) / 2n;
    await expectProductionSplit(await receipt(await sellToken(trader, m, pool, tokensIn)));
    const r = await collect(pool.token);
    const { grossToken, fromToken, claimed } = await expectProductionSplit(r);

    // The token side is the sell's LP fee (1% of the input; fee growth rounds down by at most a unit).
    const lpFee = (tokensIn * 10_000n) / 1_000_000n;
    expect(grossToken).toBeLessThanOrEqual(lpFee);
    expect(grossToken).toBeGreaterThanOrEqual(lpFee - 1n);
    // Of the output: 3000/10000 to the first converter, everything else (more than its 1500/4500) to the last one.
    const out = fromToken!.amountOut;
    expect(out).toBeGreaterThan(0n);
    // (expectProductionSplit checked the arrays to the unit; this is what it means for the last converter.)
    expect(out - share(bps[1]!, out)).toBeGreaterThan((out * 1_500n) / 4_500n);
    expect(usdcOf(claimed)[2]).toBeGreaterThanOrEqual(out - share(bps[1]!, out));

    const swaps = swapsOf(r, poolId);
    expect(swaps.length).toBeGreaterThan(0);
    expect(swaps.every((s) => s.sender === c.universalRouter)).toBe(true);
  });

  it("inside a swap: the hook's collection converts on the PoolManager directly, so those Swaps' sender is the locker", async () => {
    // The last conversions paid LP fees; the next swap's hook collects and converts them first.
    const r = await receipt(await buyToken(trader, m, pool, 500_000_000n));
    const { fromToken } = await expectProductionSplit(r);
    expect(fromToken).toBeDefined();
    const senders = swapsOf(r, poolId).map((s) => s.sender);
    expect(senders.at(-1)).toBe(c.universalRouter); // the trader's own buy, last
    expect(senders.length).toBeGreaterThan(1);
    expect(senders.slice(0, -1).every((sender) => sender === c.lpLocker)).toBe(true);
  });
});
