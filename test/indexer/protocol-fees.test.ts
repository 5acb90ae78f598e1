/**
 * The hook's protocol fee indexed as Clanker's hook takes and pays it (clanker-v4-real.md items
 * 5-6): minted to the hook as claims of the paired token in the swap (before the pool's `Swap` for
 * an exact-input buy or an exact-output sell, after it otherwise), paid to the factory as USDC at
 * the start of a later swap. Each swap's fee counts in its pool's `protocol_fees` once, in USDC,
 * and a buyback's indexed spend is what the operator paid: the pool's part plus that fee, for an
 * exact-input buyback and for an exact-output one.
 */
import pg from "pg";
import { type Abi, type Address, type Hex, type TransactionReceipt, encodeAbiParameters, encodePacked, erc20Abi, parseAbi, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { POOL_KEY_ABI, type PoolKey } from "../../common/uniswap.js";
import { ensureRouterApproval, marketContracts } from "../../devnet/market.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { afterSwapProtocolFee, exactInBuyProtocolFee, exactOutSellProtocolFee, protocolFeeMints } from "../contracts/protocol-fee.js";
import * as act from "../helpers/actions.js";
import { createDatabase, devnetAs, startTestPonder, testEnv } from "../helpers/env.js";

const USDC = (n: bigint) => n * 1_000_000n;
const lc = (a: string) => a.toLowerCase();
const LP_FEE = 10_000; // the devnet launch's static 1% each way

const routerAbi = parseAbi(["function execute(bytes commands, bytes[] inputs, uint256 deadline) payable"]);

describe("indexer: the hook's protocol fee and the buybacks that pay it", () => {
  const env = testEnv();
  const c = env.deployments.contracts as Record<string, Address>;
  const m = marketContracts(env.deployments);
  const operator = devnetAs(0);
  const creator = devnetAs(1);
  const trader = devnetAs(2);
  let ponder: Awaited<ReturnType<typeof startTestPonder>>;
  let db: pg.Pool;
  const q = async <T = Record<string, unknown>>(text: string, values: unknown[] = []) => (await db.query(text, values)).rows as T[];

  let token: Address;
  let poolId: Hex;
  let poolKey: PoolKey;
  let usdcIs0: boolean;
  const receipts: TransactionReceipt[] = [];
  const spends: { tx: Hex; paid: bigint }[] = [];

  /** UniversalRouter V4_SWAP, one exact-output hop: `amountOut` of `tokenOut` for at most `amountInMax` of `tokenIn`. */
  async function exactOut(ctx: typeof operator, tokenIn: Address, tokenOut: Address, amountOut: bigint, amountInMax: bigint): Promise<TransactionReceipt> {
    await ensureRouterApproval(ctx, m, tokenIn, amountInMax);
    const swap = encodeAbiParameters(
      [
        {
          type: "tuple",
          components: [
            { name: "poolKey", ...POOL_KEY_ABI },
            { name: "zeroForOne", type: "bool" },
            { name: "amountOut", type: "uint128" },
            { name: "amountInMaximum", type: "uint128" },
            { name: "hookData", type: "bytes" },
          ],
        },
      ],
      [{ poolKey, zeroForOne: lc(tokenIn) === lc(poolKey.currency0), amountOut, amountInMaximum: amountInMax, hookData: "0x" }],
    );
    const settle = encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [tokenIn, amountInMax]);
    const take = encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [tokenOut, amountOut]);
    const input = encodeAbiParameters(
      [{ type: "bytes" }, { type: "bytes[]" }],
      [encodePacked(["uint8", "uint8", "uint8"], [0x08, 0x0c, 0x0f]), [swap, settle, take]],
    );
    const hash = await ctx.write(c.universalRouter!, routerAbi as Abi, "execute", ["0x10", [input], 2n ** 48n]);
    return ctx.publicClient.getTransactionReceipt({ hash });
  }

  /** The pool's `Swap` a receipt ends with (the actor's own; the locker's conversions come before it). */
  const lastSwap = (r: TransactionReceipt) =>
    parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: r.logs })
      .filter((l) => l.args.id === poolId)
      .at(-1)!.args;
  const pairedOf = (s: { amount0: bigint; amount1: bigint }) => (usdcIs0 ? s.amount0 : s.amount1);
  const lastMint = (r: TransactionReceipt) => protocolFeeMints(r.logs, c.v4PoolManager!, c.clankerHook!, c.usdc!).at(-1)!;
  /** The USDC the operator sent in a transaction (its ERC-20 transfers out). */
  const usdcSent = (r: TransactionReceipt, from: Address) =>
    parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: r.logs.filter((l) => lc(l.address) === lc(c.usdc!)) })
      .filter((l) => lc(l.args.from) === lc(from))
      .reduce((sum, l) => sum + l.args.value, 0n);

  beforeAll(async () => {
    const databaseUrl = await createDatabase("protocolfees");
    db = new pg.Pool({ connectionString: databaseUrl, options: "-c search_path=app" });
    ponder = await startTestPonder(databaseUrl);
    const mint = parseAbi(["function mint(address to, uint256 amount)"]);
    await operator.write(c.usdc!, mint, "mint", [operator.account.address, USDC(10_000n)]);
    await operator.write(c.usdc!, mint, "mint", [trader.account.address, USDC(10_000n)]);

    const launched = await act.launchToken(operator, c, {
      name: "Protocol fees",
      symbol: "PFEE",
      operator: operator.account.address,
      creator: creator.account.address,
    });
    token = launched.token;
    poolId = launched.poolId;
    poolKey = (await operator.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [token])).poolKey;
    usdcIs0 = lc(poolKey.currency0) === lc(c.usdc!);
    await act.enroll(operator, c, token, creator.account.address);

    // Every kind of swap: exact-in buy and sell, exact-out sell, by a trader; then the operator's
    // buybacks, exact-in and exact-out.
    receipts.push(await act.swapInPool(trader, c, token, c.usdc!, USDC(1_000n)));
    receipts.push(await act.swapInPool(trader, c, token, token, (await act.balanceOf(trader, token, trader.account.address)) / 4n));
    receipts.push(await exactOut(trader, token, c.usdc!, USDC(20n), await act.balanceOf(trader, token, trader.account.address)));
    const exactInBuyback = await act.swapInPool(operator, c, token, c.usdc!, USDC(100n));
    receipts.push(exactInBuyback);
    spends.push({ tx: exactInBuyback.transactionHash, paid: usdcSent(exactInBuyback, operator.account.address) });
    const tokensOut = (await act.balanceOf(operator, token, operator.account.address)) / 3n;
    const exactOutBuyback = await exactOut(operator, c.usdc!, token, tokensOut, USDC(50n));
    receipts.push(exactOutBuyback);
    spends.push({ tx: exactOutBuyback.transactionHash, paid: usdcSent(exactOutBuyback, operator.account.address) });

    await waitForIndexed(ponder, await operator.publicClient.getBlockNumber()).catch((error) => {
      throw new Error(`${error.message}\n${ponder.logs.slice(-30).join("\n")}`);
    });
  }, 300_000);

  afterAll(async () => {
    await ponder?.stop();
    await db?.end();
  });

  it("each swap's protocol fee is production's maths, minted to the hook in that swap", () => {
    const [buy, sell, sellExactOut, buyback, buybackExactOut] = receipts.map((r) => ({ swap: lastSwap(r), fee: lastMint(r) }));
    expect(buy!.fee).toBe(exactInBuyProtocolFee(USDC(1_000n), LP_FEE));
    expect(sell!.fee).toBe(afterSwapProtocolFee(pairedOf(sell!.swap), LP_FEE));
    expect(sellExactOut!.fee).toBe(exactOutSellProtocolFee(USDC(20n), LP_FEE));
    expect(pairedOf(sellExactOut!.swap)).toBe(USDC(20n) + sellExactOut!.fee);
    expect(buyback!.fee).toBe(exactInBuyProtocolFee(USDC(100n), LP_FEE));
    expect(buybackExactOut!.fee).toBe(afterSwapProtocolFee(-pairedOf(buybackExactOut!.swap), LP_FEE));
  });

  it("the pool's protocol fees are every fee minted for its swaps, the locker's conversions included, in USDC", async () => {
    const minted = receipts.flatMap((r) => protocolFeeMints(r.logs, c.v4PoolManager!, c.clankerHook!, c.usdc!)).reduce((a, b) => a + b, 0n);
    const [row] = await q<{ protocol_fees: string; paired_token: string }>("SELECT protocol_fees::text, paired_token FROM pool WHERE pool_id = $1", [poolId]);
    expect(row).toEqual({ protocol_fees: minted.toString(), paired_token: lc(c.usdc!) });
  });

  it("a buyback's indexed spend is what the operator paid, the protocol fee included, exact-in or exact-out", async () => {
    const rows = await q<{ tx_hash: string; usdc_in: string; amount_in: string }>(
      "SELECT tx_hash, usdc_in::text, amount_in::text FROM buyback WHERE token = $1 ORDER BY block_number",
      [lc(token)],
    );
    expect(rows).toEqual(spends.map((s) => ({ tx_hash: s.tx, usdc_in: s.paid.toString(), amount_in: s.paid.toString() })));
    expect(spends[0]!.paid).toBe(USDC(100n));
    // Exact-out: the pool's input plus the fee the hook added after the swap.
    const r = receipts[4]!;
    expect(spends[1]!.paid).toBe(-pairedOf(lastSwap(r)) + lastMint(r));
    const [totals] = await q<{ buyback_usdc: string }>("SELECT buyback_usdc::text FROM token_totals WHERE token = $1", [lc(token)]);
    expect(totals!.buyback_usdc).toBe((spends[0]!.paid + spends[1]!.paid).toString());
  });
});
