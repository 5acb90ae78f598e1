/**
 * Launcher, LP locker and fee locker on the devnet: the devnet's own tokens, a fresh launch
 * (pool, starting tick, locked liquidity), fee collection split exactly by bps with FeeIn.Paired
 * conversion, and claims of pooled balances.
 */
import {
  type Abi,
  type Address,
  type TransactionReceipt,
  concat,
  erc20Abi,
  hashDomain,
  keccak256,
  pad,
  parseAbi,
  parseEventLogs,
  parseSignature,
  toHex,
  zeroHash,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { FeeIn, clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { registryAbi } from "../../common/abis/registry.js";
import { DEVNET_CHAIN_ID } from "../../common/config.js";
import { type PoolKey, poolIdOf } from "../../common/uniswap.js";
import { createDevnetContext } from "../../devnet/context.js";
import { type MarketPool, buyToken, marketContracts, sellToken } from "../../devnet/market.js";
import { DEVNET_ACCOUNTS, DEVNET_TOKENS, devnetAccount, devnetLaunchFees, devnetPrivateKey, launchToken } from "../../devnet/protocol.js";
import { v4PoolManagerAbi } from "../../devnet/uniswap.js";
import { CLANKER_TOKEN_SUPPLY, buildDeploymentConfig, launchSplitRewards, sqrtPriceAtTick, tickFromMarketCap } from "../../common/deploy-config.js";
import { testEnv } from "../helpers/env.js";
import { passAuction } from "../helpers/actions.js";
import { exactInBuyProtocolFee } from "./protocol-fee.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const m = marketContracts(deployments);
const as = (index: number) => createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(index));
const operator = deployments.operator;
const launcherCtx = as(1);
const trader = as(1);
const stranger = as(2);

type TokenRewardInfo = {
  token: Address;
  poolKey: PoolKey;
  positionId: bigint;
  numPositions: bigint;
  rewardBps: readonly number[];
  rewardAdmins: readonly Address[];
  rewardRecipients: readonly Address[];
};
const tokenRewards = (token: Address) => trader.read<TokenRewardInfo>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
const availableFees = (owner: Address, currency: Address) => trader.read<bigint>(c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [owner, currency]);
const balanceOf = (token: Address, owner: Address) => trader.read<bigint>(token, erc20Abi, "balanceOf", [owner]);
const receipt = (hash: `0x${string}`) => trader.publicClient.getTransactionReceipt({ hash });

let salts = 0;
async function launch(p: { creator: Address; pairedToken?: Address; startingMarketCap?: bigint; rewards?: ReturnType<typeof launchSplitRewards> }) {
  const symbol = `T${salts}`;
  const config = buildDeploymentConfig({
    tokenAdmin: launcherCtx.account.address,
    name: `Test ${salts}`,
    symbol,
    salt: keccak256(toHex(`launch-test-${Date.now()}-${salts++}`)),
    chainId: DEVNET_CHAIN_ID,
    pairedToken: p.pairedToken ?? c.usdc!,
    locker: c.lpLocker!,
    rewards: p.rewards ?? launchSplitRewards({ operator, creator: p.creator }),
    startingMarketCap: p.startingMarketCap ?? 10_000n * 10n ** 6n,
    fees: devnetLaunchFees({ clankerHook: c.clankerHook!, mevModule: c.mevModule! }),
  });
  const created = await launchToken(launcherCtx, c.launcher!, config);
  await passAuction(launcherCtx);
  const { poolKey } = await tokenRewards(created.token);
  return { ...created, pool: { token: created.token, pairedToken: created.pairedToken, poolKey } satisfies MarketPool };
}

/** slot0 and active liquidity of a v4 pool, read with `extsload` as v4-core's StateLibrary does. */
async function poolState(poolId: `0x${string}`) {
  const stateSlot = keccak256(concat([poolId, pad(toHex(6), { size: 32 })]));
  const slot0 = BigInt(await trader.read<`0x${string}`>(c.v4PoolManager!, v4PoolManagerAbi as Abi, "extsload", [stateSlot]));
  const liquidity = BigInt(
    await trader.read<`0x${string}`>(c.v4PoolManager!, v4PoolManagerAbi as Abi, "extsload", [toHex(BigInt(stateSlot) + 3n, { size: 32 })]),
  );
  const rawTick = Number((slot0 >> 160n) & 0xffffffn);
  return { sqrtPriceX96: slot0 & ((1n << 160n) - 1n), tick: rawTick >= 0x800000 ? rawTick - 0x1000000 : rawTick, liquidity };
}

function feeEvents(r: TransactionReceipt) {
  const locker = parseEventLogs({ abi: clankerLpLockerAbi, logs: r.logs });
  const stores = parseEventLogs({ abi: clankerFeeLockerAbi, eventName: "StoreTokens", logs: r.logs });
  return {
    claimed: locker.find((l) => l.eventName === "ClaimedRewards")!.args as {
      token: Address;
      amount0: bigint;
      amount1: bigint;
      rewards0: readonly bigint[];
      rewards1: readonly bigint[];
    },
    swapped: locker
      .filter((l) => l.eventName === "FeesSwapped")
      .map((l) => l.args as { token: Address; rewardToken: Address; amountSwapped: bigint; swappedToken: Address; amountOut: bigint }),
    stores: stores.map((l) => l.args),
  };
}

const permitAbi = parseAbi([
  "function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)",
  "function nonces(address owner) view returns (uint256)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
]);
const EIP712_DOMAIN = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;
const PERMIT_TYPES = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** Largest LP fee of an exact-input swap of `amountIn` at a 1% pool fee (v4 SwapMath rounds the fee up). */
const lpFee = (amountIn: bigint) => (amountIn * 10_000n + 999_999n) / 1_000_000n;

describe("the devnet's launched tokens", () => {
  it("the protocol token pays 100% of its LP fees to the operator in USDC and is not enrolled", async () => {
    const info = await tokenRewards(deployments.protocolToken!);
    expect(c.protocolToken).toBe(deployments.protocolToken);
    expect(info.rewardBps).toEqual([10_000]);
    expect(info.rewardRecipients).toEqual([operator]);
    expect(info.rewardAdmins).toEqual([operator]);
    expect(await trader.read(c.lpLocker!, clankerLpLockerAbi as Abi, "feePreferences", [deployments.protocolToken, 0n])).toBe(FeeIn.Paired);
    expect([info.poolKey.currency0, info.poolKey.currency1]).toContain(c.usdc);
    expect(await trader.read(c.registry!, registryAbi as Abi, "isEnrolled", [deployments.protocolToken])).toBe(false);
  });

  it.each([
    ["wethPairedToken", "weth", DEVNET_ACCOUNTS.wethCreator],
    ["usdcPairedToken", "usdc", DEVNET_ACCOUNTS.usdcCreator],
  ] as const)("%s is paired with %s and enrolled with the default split", async (name, paired, creatorIndex) => {
    const token = c[name]!;
    const creator = devnetAccount(creatorIndex).address;
    const info = await tokenRewards(token);
    expect([info.poolKey.currency0, info.poolKey.currency1]).toContain(c[paired]);
    expect([info.poolKey.currency0, info.poolKey.currency1]).not.toContain(paired === "weth" ? c.usdc : c.weth);
    expect(info.rewardRecipients).toEqual([operator, creator]);
    expect(info.rewardBps).toEqual([9050, 950]);
    for (const i of [0n, 1n]) expect(await trader.read(c.lpLocker!, clankerLpLockerAbi as Abi, "feePreferences", [token, i])).toBe(FeeIn.Paired);
    const [enrolledCreator, protocolBps, assetBps, perpBps, creatorBps, charterHash, active, halted] = await trader.read<readonly unknown[]>(
      c.registry!,
      registryAbi as Abi,
      "enrollment",
      [token],
    );
    expect({ enrolledCreator, protocolBps, assetBps, perpBps, creatorBps, charterHash, active, halted }).toEqual({
      enrolledCreator: creator,
      protocolBps: 500,
      assetBps: 2850,
      perpBps: 5700,
      creatorBps: 950,
      charterHash: zeroHash,
      active: true,
      halted: false,
    });
  });

  it("every devnet token's pool was initialised at its starting market cap's tick (mirrored when it sorts second)", async () => {
    const logs = await trader.publicClient.getContractEvents({ address: c.v4PoolManager!, abi: poolManagerAbi, eventName: "Initialize", fromBlock: 0n });
    const cases = [
      [c.protocolToken!, c.usdc!, DEVNET_TOKENS.protocol.startingMarketCap],
      [c.usdcPairedToken!, c.usdc!, DEVNET_TOKENS.usdcCreator.startingMarketCap],
      [c.wethPairedToken!, c.weth!, DEVNET_TOKENS.wethCreator.startingMarketCap],
    ] as const;
    const orientations = new Set<boolean>();
    for (const [token, paired, cap] of cases) {
      const { poolKey } = await tokenRewards(token);
      const init = logs.find((l) => l.args.id === poolIdOf(poolKey))!;
      const tokenIsToken0 = BigInt(token) < BigInt(paired);
      orientations.add(tokenIsToken0);
      const startTick = tickFromMarketCap(cap, 200);
      expect(init.args.tick).toBe(tokenIsToken0 ? startTick : -startTick);
      expect(init.args.sqrtPriceX96).toBe(sqrtPriceAtTick(tokenIsToken0 ? startTick : -startTick));
    }
    expect(orientations.size, "the devnet covers both token orderings").toBe(2);
  });
});

describe("a fresh launch", () => {
  let launched: Awaited<ReturnType<typeof launch>>;
  beforeAll(async () => {
    launched = await launch({ creator: stranger.account.address });
  });

  it("decodes TokenCreated and keys the pool as the locker reports it", async () => {
    const { poolKey } = launched.pool;
    expect(launched.poolId).toBe(poolIdOf(poolKey));
    expect(launched.pairedToken).toBe(c.usdc);
    expect(launched.locker).toBe(c.lpLocker);
    expect(launched.tokenAdmin).toBe(launcherCtx.account.address);
    expect(launched.msgSender).toBe(launcherCtx.account.address);
    expect(launched.startingTick).toBe(tickFromMarketCap(10_000n * 10n ** 6n, 200));
    // Dynamic-fee key with the devnet's hook, as on Base.
    expect(poolKey).toMatchObject({ fee: 0x800000, tickSpacing: 200, hooks: c.clankerHook });
    expect(launched.hook).toBe(c.clankerHook);
    expect(launched.mevModule).toBe(c.mevModule);
    expect(await balanceOf(launched.token, launcherCtx.account.address)).toBe(0n);
  });

  it("initialises the pool at the starting tick and locks the whole supply in one position", async () => {
    const tokenIsToken0 = launched.pool.poolKey.currency0 === launched.token;
    const tick = tokenIsToken0 ? launched.startingTick : -launched.startingTick;
    const state = await poolState(launched.poolId);
    expect(state.tick).toBe(tick);
    expect(state.sqrtPriceX96).toBe(sqrtPriceAtTick(tick));

    const [modify] = parseEventLogs({ abi: poolManagerAbi, eventName: "ModifyLiquidity", logs: launched.receipt.logs });
    const [lower, upper] = [launched.startingTick, launched.startingTick + 110_400];
    expect(modify!.args.id).toBe(launched.poolId);
    expect([modify!.args.tickLower, modify!.args.tickUpper]).toEqual(tokenIsToken0 ? [lower, upper] : [-upper, -lower]);
    expect(modify!.args.liquidityDelta).toBeGreaterThan(0n);
    // The position starts at its edge: all of it in the token, in range only when the token is currency0.
    expect(state.liquidity).toBe(tokenIsToken0 ? modify!.args.liquidityDelta : 0n);
    // The liquidity maths round down: the locker keeps the dust (below 1e-12 of the supply).
    const inPool = await balanceOf(launched.token, c.v4PoolManager!);
    const dust = await balanceOf(launched.token, c.lpLocker!);
    expect(inPool + dust).toBe(CLANKER_TOKEN_SUPPLY);
    expect(dust).toBeLessThan(CLANKER_TOKEN_SUPPLY / 10n ** 12n);
  });
});

describe("the launched token", () => {
  it("takes any name (production has no 31-byte limit) and has an EIP-2612 permit under that name", async () => {
    const name = "A launched token whose name is well over thirty-one bytes";
    const holder = as(1);
    const spender = privateKeyToAccount(generatePrivateKey()).address;
    const config = buildDeploymentConfig({
      tokenAdmin: holder.account.address,
      name,
      symbol: "LONG",
      salt: keccak256(toHex(`long-name-${Date.now()}`)),
      chainId: DEVNET_CHAIN_ID,
      pairedToken: c.usdc!,
      locker: c.lpLocker!,
      rewards: launchSplitRewards({ operator, creator: holder.account.address }),
      startingMarketCap: 10_000n * 10n ** 6n,
      fees: devnetLaunchFees({ clankerHook: c.clankerHook!, mevModule: c.mevModule! }),
    });
    const { token } = await launchToken(holder, c.launcher!, config);
    expect(await trader.read(token, erc20Abi, "name")).toBe(name);

    const domain = { name, version: "1", chainId: DEVNET_CHAIN_ID, verifyingContract: token };
    expect(await trader.read(token, permitAbi, "DOMAIN_SEPARATOR")).toBe(
      hashDomain({ domain: { ...domain, chainId: BigInt(DEVNET_CHAIN_ID) }, types: { EIP712Domain: EIP712_DOMAIN } }),
    );
    const message = { owner: holder.account.address, spender, value: 123n, nonce: 0n, deadline: 2n ** 40n };
    const signature = parseSignature(
      await holder.walletClient.signTypedData({ account: holder.account, domain, types: PERMIT_TYPES, primaryType: "Permit", message }),
    );
    await stranger.write(token, permitAbi, "permit", [message.owner, spender, message.value, message.deadline, Number(signature.v), signature.r, signature.s]);
    expect(await trader.read(token, erc20Abi, "allowance", [holder.account.address, spender])).toBe(123n);
    expect(await trader.read(token, permitAbi, "nonces", [holder.account.address])).toBe(1n);
  });
});

describe("fees: swaps → collectRewards → fee locker → claim", () => {
  const creator = privateKeyToAccount(generatePrivateKey()).address;
  let first: Awaited<ReturnType<typeof launch>>;
  let second: Awaited<ReturnType<typeof launch>>;
  const creatorRewards: bigint[] = [];
  const converted = new Map<Address, bigint>();

  beforeAll(async () => {
    first = await launch({ creator });
    second = await launch({ creator });
  });

  it.each([
    ["first", 1_000_000_000n],
    ["second", 250_000_000n],
  ] as const)("splits the %s token's fees 9050/950 exactly by bps, converting the token side to USDC", async (which, usdcIn) => {
    const { token, pool } = which === "first" ? first : second;
    await buyToken(trader, m, pool, usdcIn);
    const bought = await balanceOf(token, trader.account.address);
    const tokensIn = bought / 2n;
    const before = {
      op: await availableFees(operator, c.usdc!),
      creator: await availableFees(creator, c.usdc!),
      opToken: await availableFees(operator, token),
    };
    // The hook collects on every swap, one swap late: the sell moves the buy's USDC fee into the fee locker.
    const sell = await receipt(await sellToken(trader, m, pool, tokensIn));
    const r = await receipt(await trader.write(c.lpLocker!, clankerLpLockerAbi as Abi, "collectRewards", [token]));
    const atSell = feeEvents(sell);
    const { claimed, swapped } = feeEvents(r);
    const stores = [...atSell.stores, ...feeEvents(r).stores];

    const usdcIs0 = pool.poolKey.currency0 === c.usdc;
    const usdcOf = (e: typeof claimed) => (usdcIs0 ? e.rewards0 : e.rewards1);
    const tokenOf = (e: typeof claimed) => (usdcIs0 ? e.rewards1 : e.rewards0);
    expect(claimed.token).toBe(token);
    expect(atSell.claimed.token).toBe(token);
    expect(tokenOf(claimed)).toEqual([0n, 0n]);
    expect(tokenOf(atSell.claimed)).toEqual([0n, 0n]);
    expect(atSell.swapped).toHaveLength(0);

    // USDC side, stored during the sell: the buy's LP fee, on the input less the protocol fee taken
    // off it first (p = 2,000 pips of it: amountIn·p/(1e6+p)).
    const protocolFee = exactInBuyProtocolFee(usdcIn, 10_000);
    const usdcCollected = usdcOf(atSell.claimed)[0]! + usdcOf(atSell.claimed)[1]!;
    expect(usdcCollected).toBeLessThanOrEqual(lpFee(usdcIn - protocolFee));
    expect(usdcCollected).toBeGreaterThanOrEqual(lpFee(usdcIn - protocolFee) - 1n);

    // The token side (the sell's fee) was swapped to USDC in the token's own pool by the explicit collection.
    expect(swapped).toHaveLength(1);
    const conversion = swapped[0]!;
    expect(conversion).toMatchObject({ token, rewardToken: token, swappedToken: c.usdc });
    const tokenFee = lpFee(tokensIn);
    expect(conversion.amountSwapped).toBeLessThanOrEqual(tokenFee);
    expect(conversion.amountSwapped).toBeGreaterThanOrEqual(tokenFee - 1n); // fee growth rounds down by at most a unit
    expect(conversion.amountOut).toBeGreaterThan(0n);
    expect(usdcOf(claimed)[0]! + usdcOf(claimed)[1]!).toBe(conversion.amountOut);

    // Exact split: each part floor(bps × amount / 10000) to the operator, the remainder to the last recipient.
    const share = (amount: bigint) => (amount * 9050n) / 10_000n;
    expect(usdcOf(atSell.claimed)).toEqual([share(usdcCollected), usdcCollected - share(usdcCollected)]);
    expect(usdcOf(claimed)).toEqual([share(conversion.amountOut), conversion.amountOut - share(conversion.amountOut)]);
    const expectedOperator = share(usdcCollected) + share(conversion.amountOut);
    const expectedCreator = usdcCollected - share(usdcCollected) + (conversion.amountOut - share(conversion.amountOut));

    // StoreTokens carry exactly the rewards, and the fee locker's balances moved by them.
    const stored = (owner: Address) => stores.filter((s) => s.feeOwner === owner && s.token === c.usdc).reduce((sum, s) => sum + s.amount, 0n);
    expect(stores.every((s) => s.sender === c.lpLocker && s.token === c.usdc)).toBe(true);
    expect(stored(operator)).toBe(expectedOperator);
    expect(stored(creator)).toBe(expectedCreator);
    expect((await availableFees(operator, c.usdc!)) - before.op).toBe(expectedOperator);
    expect((await availableFees(creator, c.usdc!)) - before.creator).toBe(expectedCreator);
    expect(await availableFees(operator, token)).toBe(before.opToken);
    creatorRewards.push(expectedCreator);
    converted.set(token, conversion.amountSwapped);
  });

  it("a claim pays the creator's balance pooled over both tokens and zeroes it; anyone may call it", async () => {
    const pooled = creatorRewards.reduce((a, b) => a + b, 0n);
    expect(creatorRewards).toHaveLength(2);
    expect(await availableFees(creator, c.usdc!)).toBe(pooled);
    const r = await receipt(await stranger.write(c.feeLocker!, clankerFeeLockerAbi as Abi, "claim", [creator, c.usdc]));
    const [claim] = parseEventLogs({ abi: clankerFeeLockerAbi, eventName: "ClaimTokens", logs: r.logs });
    expect(claim!.args).toEqual({ feeOwner: creator, token: c.usdc, amountClaimed: pooled });
    expect(await balanceOf(c.usdc!, creator)).toBe(pooled);
    expect(await availableFees(creator, c.usdc!)).toBe(0n);
    await expect(stranger.write(c.feeLocker!, clankerFeeLockerAbi as Abi, "claim", [creator, c.usdc])).rejects.toThrow();
  });

  it("the next collection picks up exactly the LP fee the conversion swap itself paid", async () => {
    const r = await receipt(await trader.write(c.lpLocker!, clankerLpLockerAbi as Abi, "collectRewards", [first.token]));
    const { swapped } = feeEvents(r);
    expect(swapped).toHaveLength(1);
    const fee = lpFee(converted.get(first.token)!);
    expect(swapped[0]!.amountSwapped).toBeLessThanOrEqual(fee);
    expect(swapped[0]!.amountSwapped).toBeGreaterThanOrEqual(fee - 1n);
  });
});

describe("WETH-paired tokens", () => {
  it("are bought USDC → WETH (v3) → token (v4) in one UniversalRouter execute, and their fees convert to WETH", async () => {
    const buyer = as(2);
    const { poolKey } = await tokenRewards(c.wethPairedToken!);
    const pool: MarketPool = { token: c.wethPairedToken!, pairedToken: c.weth!, poolKey };
    const before = await balanceOf(pool.token, buyer.account.address);
    const r = await receipt(await buyToken(buyer, m, pool, 50_000_000n));
    expect((await balanceOf(pool.token, buyer.account.address)) - before).toBeGreaterThan(0n);
    expect(r.logs.some((l) => l.address.toLowerCase() === c.v3WethUsdcPool!.toLowerCase())).toBe(true);
    const [v4Swap] = parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: r.logs });
    expect(v4Swap!.args.id).toBe(poolIdOf(poolKey));

    const collected = feeEvents(await receipt(await buyer.write(c.lpLocker!, clankerLpLockerAbi as Abi, "collectRewards", [pool.token])));
    expect(collected.stores.length).toBeGreaterThan(0);
    expect(collected.stores.every((s) => s.token === c.weth)).toBe(true);
  });
});

describe("the locker's reward encoding", () => {
  it("stores the fee preferences given as lockerData for each recipient", async () => {
    const creator = privateKeyToAccount(generatePrivateKey()).address;
    const rewards = [
      { admin: operator, recipient: operator, bps: 7000, feeIn: FeeIn.Paired },
      { admin: creator, recipient: creator, bps: 2000, feeIn: FeeIn.Both },
      { admin: creator, recipient: creator, bps: 1000, feeIn: FeeIn.Clanker },
    ] as const;
    const { token } = await launch({ creator, rewards: [...rewards] });
    for (const [i, r] of rewards.entries()) {
      expect(await trader.read(c.lpLocker!, clankerLpLockerAbi as Abi, "feePreferences", [token, BigInt(i)])).toBe(r.feeIn);
    }
  });
});
