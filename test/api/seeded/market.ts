/**
 * A dashboard's figures on real PostgreSQL and the devnet, REST and GraphQL alike: the pool's
 * hour and day candles, supply and market cap, volume in USDC (a USDC-paired pool as is, a
 * WETH-paired pool at the WETH/USDC price of each swap) and burns valued at the price of their
 * moment. Every expected value is computed here from the chain's own logs and state, not from
 * the index.
 */
import { type Address, type Hex, erc20Abi, parseAbi } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { poolManagerAbi, v3PoolEventsAbi } from "../../../common/abis/uniswap.js";
import { DEAD_ADDRESS } from "../../../common/constants.js";
import { formatDecimal } from "../../../common/money.js";
import { burnsResponse, candlesResponse, marketResponse } from "../../../api/rest/market.js";
import { sellToken } from "../../../devnet/market.js";
import * as act from "../../helpers/actions.js";
import { type Harness, actors } from "../harness.js";
import { seededWorld } from "./world.js";

const USDC = (n: bigint) => n * 1_000_000n;
const E36 = 10n ** 36n;
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);
const slot0Abi = parseAbi(["function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)"]);

let h: Harness;
const { operator, trader } = actors();
const client = trader.publicClient;

/** Paired base units per 1e18 whole tokens (1e36 base units) at a sqrt price: the pool's own maths. */
function priceE18(sqrtPriceX96: bigint, tokenIs0: boolean): bigint {
  const p = sqrtPriceX96 * sqrtPriceX96;
  return tokenIs0 ? (E36 * p) >> 192n : (E36 << 192n) / p;
}
const abs = (x: bigint) => (x < 0n ? -x : x);

type ChainSwap = { block: bigint; logIndex: number; timestamp: bigint; price: bigint; tokenAmount: bigint; pairedAmount: bigint; usdc: bigint };
type Launched = {
  token: Address;
  poolId: Hex;
  tokenIs0: boolean;
  initial: bigint;
  paired: "usdc" | "weth";
  burns: { amount: bigint; block: bigint; logIndex: number; id: string }[];
};

async function warp(seconds: number) {
  const request = client.request as (a: { method: string; params?: unknown[] }) => Promise<unknown>;
  await request({ method: "evm_increaseTime", params: [`0x${seconds.toString(16)}`] });
  await request({ method: "evm_mine", params: [] });
}

async function launch(symbol: string, paired: "usdc" | "weth"): Promise<Launched> {
  const c = h.contracts;
  const created = await act.launchToken(operator, c, {
    name: `Chart ${symbol}`,
    symbol,
    operator: operator.account.address,
    creator: trader.account.address,
    pairedToken: paired === "weth" ? c.weth! : c.usdc!,
    ...(paired === "weth" ? { startingMarketCap: 5n * 10n ** 18n } : {}),
  });
  const token = created.token as Address;
  // The index follows a launch's swaps and burns from its enrolment (docs/design.md §4.6), as every flow of ours enrols at launch.
  await act.enroll(operator, c, token, trader.account.address);
  const [init] = await client.getLogs({
    address: c.v4PoolManager!,
    event: poolManagerAbi[0],
    args: { id: created.poolId as Hex },
    fromBlock: created.receipt.blockNumber,
    toBlock: created.receipt.blockNumber,
  });
  return {
    token,
    poolId: created.poolId as Hex,
    tokenIs0: init!.args.currency0!.toLowerCase() === token.toLowerCase(),
    initial: priceE18(init!.args.sqrtPriceX96!, init!.args.currency0!.toLowerCase() === token.toLowerCase()),
    paired,
    burns: [],
  };
}

async function burnSome(l: Launched, amount: bigint) {
  const hash = await trader.write(l.token, erc20Abi, "transfer", [DEAD_ADDRESS, amount]);
  const r = await act.receipt(trader, hash);
  const log = r.logs.find((x) => x.address.toLowerCase() === l.token.toLowerCase())!;
  l.burns.push({ amount, block: r.blockNumber, logIndex: log.logIndex!, id: `${hash}-${log.logIndex}` });
}

/** Wraps `wei` of the trader's ether and buys the WETH-paired token with it (a v4 hop selling WETH into the pool). */
async function buyWithWeth(l: Launched, wei: bigint) {
  const c = h.contracts;
  await trader.write(c.weth!, parseAbi(["function deposit() payable"]), "deposit", [], wei);
  const poolKey = await act.poolKeyOf(trader, c, l.token);
  await act.receipt(
    trader,
    await sellToken(trader, { permit2: c.permit2!, universalRouter: c.universalRouter! }, { token: c.weth!, pairedToken: l.token, poolKey }, wei),
  );
}

/** USDC base units per 1e18 WETH just before (block, logIndex): the v3 pool's last swap before it, or its state at the previous block. */
async function ethPriceBefore(block: bigint, logIndex: number): Promise<bigint> {
  const pool = h.contracts.v3WethUsdcPool!;
  const wethIs0 = BigInt(h.contracts.weth!) < BigInt(h.contracts.usdc!);
  const same = (await client.getLogs({ address: pool, event: v3PoolEventsAbi[1], fromBlock: block, toBlock: block })).filter((x) => x.logIndex! < logIndex);
  const sqrt = same.length
    ? same.at(-1)!.args.sqrtPriceX96!
    : (await client.readContract({ address: pool, abi: slot0Abi, functionName: "slot0", blockNumber: block - 1n }))[0];
  return priceE18(sqrt, wethIs0);
}

/** Every swap of the pool, from the PoolManager's logs, with its price after and its USDC. */
async function chainSwaps(l: Launched): Promise<ChainSwap[]> {
  const logs = await client.getLogs({
    address: h.contracts.v4PoolManager!,
    event: poolManagerAbi[1],
    args: { id: l.poolId },
    fromBlock: 0n,
    toBlock: "latest",
  });
  const out: ChainSwap[] = [];
  for (const x of logs) {
    const block = await client.getBlock({ blockNumber: x.blockNumber! });
    const tokenAmount = abs(l.tokenIs0 ? x.args.amount0! : x.args.amount1!);
    const pairedAmount = abs(l.tokenIs0 ? x.args.amount1! : x.args.amount0!);
    const usdc = l.paired === "usdc" ? pairedAmount : (pairedAmount * (await ethPriceBefore(x.blockNumber!, x.logIndex!))) / E36;
    out.push({
      block: x.blockNumber!,
      logIndex: x.logIndex!,
      timestamp: block.timestamp,
      price: priceE18(x.args.sqrtPriceX96!, l.tokenIs0),
      tokenAmount,
      pairedAmount,
      usdc,
    });
  }
  return out;
}

function candlesOf(l: Launched, swaps: ChainSwap[], seconds: bigint) {
  const out = new Map<bigint, { open: bigint; high: bigint; low: bigint; close: bigint; vt: bigint; vp: bigint; vu: bigint; n: number }>();
  let before = l.initial;
  for (const s of swaps) {
    const start = (s.timestamp / seconds) * seconds;
    const c = out.get(start) ?? { open: before, high: before, low: before, close: before, vt: 0n, vp: 0n, vu: 0n, n: 0 };
    c.high = c.high > s.price ? c.high : s.price;
    c.low = c.low < s.price ? c.low : s.price;
    c.close = s.price;
    c.vt += s.tokenAmount;
    c.vp += s.pairedAmount;
    c.vu += s.usdc;
    c.n++;
    out.set(start, c);
    before = s.price;
  }
  return [...out.entries()].map(([start, c]) => ({ start, ...c }));
}

let usdcToken: Launched;
let wethToken: Launched;

/** Registers the suite; its hooks and tests run inside the describe that calls it (test/api/seeded.test.ts). */
export function marketSuite(): void {
  beforeAll(async () => {
    ({ h } = seededWorld());
    const c = h.contracts;
    await operator.write(c.usdc!, mintAbi, "mint", [trader.account.address, USDC(20_000n)]);

    usdcToken = await launch("CHRTU", "usdc");
    await act.swapInPool(trader, c, usdcToken.token, c.usdc!, USDC(1_000n));
    await burnSome(usdcToken, (await act.balanceOf(trader, usdcToken.token, trader.account.address)) / 10n); // after one swap
    await warp(2 * 3600);
    await act.swapInPool(trader, c, usdcToken.token, c.usdc!, USDC(500n));
    await act.swapInPool(trader, c, usdcToken.token, usdcToken.token, (await act.balanceOf(trader, usdcToken.token, trader.account.address)) / 3n);
    await burnSome(usdcToken, (await act.balanceOf(trader, usdcToken.token, trader.account.address)) / 4n);
    await warp(2 * 3600);
    await act.swapInPool(trader, c, usdcToken.token, c.usdc!, USDC(200n));

    wethToken = await launch("CHRTW", "weth");
    await burnSome(wethToken, 0n); // before any swap: no price yet
    await buyWithWeth(wethToken, 10n ** 17n); // WETH → token: one v4 hop
    await act.swapInPool(trader, c, wethToken.token, wethToken.token, (await act.balanceOf(trader, wethToken.token, trader.account.address)) / 2n);
    await burnSome(wethToken, (await act.balanceOf(trader, wethToken.token, trader.account.address)) / 5n);
    await h.synced();
  }, 300_000);

  const get = (path: string) => h.call("GET", `/api/v1${path}`);
  const dec = (v: bigint, d: number) => formatDecimal(v, d);

  const CANDLE_FIELDS =
    "start open openRaw high highRaw low lowRaw close closeRaw volumeToken volumeTokenRaw volumePaired volumePairedRaw volumeUsdc volumeUsdcRaw unpricedSwaps swaps";
  const MARKET_FIELDS =
    "totalSupply totalSupplyRaw burned burnedRaw circulating circulatingRaw pricePaired pricePairedRaw priceUsdc priceUsdcRaw marketCapPaired marketCapPairedRaw marketCapUsdc marketCapUsdcRaw volumeToken volumeTokenRaw volumePaired volumePairedRaw volumeUsdc volumeUsdcRaw unpricedSwaps swaps";
  const BURN_FIELDS =
    "id amount amountRaw pricePairedAtBurn pricePairedAtBurnRaw priceUsdcAtBurn priceUsdcAtBurnRaw valuePaired valuePairedRaw valueUsdc valueUsdcRaw";

  async function gqlToken(address: Address, period: "HOUR" | "DAY") {
    const a = await h.gql(
      `query($a: String!) { token(address: $a) { market { ${MARKET_FIELDS} } candles(period: ${period}, limit: 1000) { ${CANDLE_FIELDS} } burns(first: 50) { edges { node { ${BURN_FIELDS} } } } } }`,
      { a: address },
    );
    expect(a.status, a.text).toBe(200);
    expect(a.json.errors, a.text).toBeUndefined();
    return a.json.data.token;
  }

  describe.each([
    ["USDC-paired", () => usdcToken, 6],
    ["WETH-paired", () => wethToken, 18],
  ] as const)("%s pool", (_name, launched, pairedDecimals) => {
    it.each([
      ["hour", 3600n],
      ["day", 86_400n],
    ] as const)("candles by %s: OHLC and volumes from the chain's swaps, the same in REST and GraphQL", async (period, seconds) => {
      const l = launched();
      const expected = candlesOf(l, await chainSwaps(l), seconds);
      expect(expected.length).toBeGreaterThan(0);
      const a = await get(`/tokens/${l.token}/candles?period=${period}&limit=1000`);
      expect(a.status, a.text).toBe(200);
      candlesResponse.parse(a.json);
      expect(a.json.poolId).toBe(l.poolId);
      expect(a.json.pairedToken.decimals).toBe(pairedDecimals);
      const want = expected.map((c) => ({
        start: new Date(Number(c.start) * 1000).toISOString(),
        open: dec(c.open, pairedDecimals + 18),
        openRaw: c.open.toString(),
        high: dec(c.high, pairedDecimals + 18),
        highRaw: c.high.toString(),
        low: dec(c.low, pairedDecimals + 18),
        lowRaw: c.low.toString(),
        close: dec(c.close, pairedDecimals + 18),
        closeRaw: c.close.toString(),
        volumeToken: dec(c.vt, 18),
        volumeTokenRaw: c.vt.toString(),
        volumePaired: dec(c.vp, pairedDecimals),
        volumePairedRaw: c.vp.toString(),
        volumeUsdc: dec(c.vu, 6),
        volumeUsdcRaw: c.vu.toString(),
        unpricedSwaps: 0,
        swaps: c.n,
      }));
      expect(a.json.items).toEqual(want);
      if (period === "hour" && l.paired === "usdc") expect(want.length).toBeGreaterThanOrEqual(3); // the warps split the swaps into buckets
      const g = await gqlToken(l.token, period === "hour" ? "HOUR" : "DAY");
      expect(g.candles).toEqual(want);
    });

    it("supply, burned, circulating, price, market cap and volume: from the chain, the same in REST and GraphQL", async () => {
      const l = launched();
      const swaps = await chainSwaps(l);
      const last = swaps.at(-1)!;
      const totalSupply = await client.readContract({ address: l.token, abi: erc20Abi, functionName: "totalSupply" });
      const burned = await client.readContract({ address: l.token, abi: erc20Abi, functionName: "balanceOf", args: [DEAD_ADDRESS] });
      const circulating = totalSupply - burned;
      // The USDC price as of the pool's last swap: the WETH/USDC price of that moment for WETH.
      const priceUsdc = l.paired === "usdc" ? last.price : (last.price * (await ethPriceBefore(last.block, last.logIndex))) / E36;
      const sum = (f: (s: ChainSwap) => bigint) => swaps.reduce((t, s) => t + f(s), 0n);
      const want = {
        totalSupply: dec(totalSupply, 18),
        totalSupplyRaw: totalSupply.toString(),
        burned: dec(burned, 18),
        burnedRaw: burned.toString(),
        circulating: dec(circulating, 18),
        circulatingRaw: circulating.toString(),
        pricePaired: dec(last.price, pairedDecimals + 18),
        pricePairedRaw: last.price.toString(),
        priceUsdc: dec(priceUsdc, 24),
        priceUsdcRaw: priceUsdc.toString(),
        marketCapPaired: dec((circulating * last.price) / E36, pairedDecimals),
        marketCapPairedRaw: ((circulating * last.price) / E36).toString(),
        marketCapUsdc: dec((circulating * priceUsdc) / E36, 6),
        marketCapUsdcRaw: ((circulating * priceUsdc) / E36).toString(),
        volumeToken: dec(
          sum((s) => s.tokenAmount),
          18,
        ),
        volumeTokenRaw: sum((s) => s.tokenAmount).toString(),
        volumePaired: dec(
          sum((s) => s.pairedAmount),
          pairedDecimals,
        ),
        volumePairedRaw: sum((s) => s.pairedAmount).toString(),
        volumeUsdc: dec(
          sum((s) => s.usdc),
          6,
        ),
        volumeUsdcRaw: sum((s) => s.usdc).toString(),
        unpricedSwaps: 0,
        swaps: swaps.length,
      };
      expect(burned).toBeGreaterThan(0n);
      const a = await get(`/tokens/${l.token}/market`);
      expect(a.status, a.text).toBe(200);
      marketResponse.parse(a.json);
      expect(a.json).toEqual({ token: l.token, poolId: l.poolId, pairedToken: a.json.pairedToken, ...want });
      expect(a.json.pairedToken.address.toLowerCase()).toBe((l.paired === "usdc" ? h.contracts.usdc! : h.contracts.weth!).toLowerCase());
      expect((await gqlToken(l.token, "DAY")).market).toEqual(want);
    });

    it("burns valued at the pool's price after the last swap before each burn, the same in REST and GraphQL", async () => {
      const l = launched();
      const swaps = await chainSwaps(l);
      const rows = [];
      for (const b of [...l.burns].reverse()) {
        // newest first
        const prior = swaps.filter((s) => s.block < b.block || (s.block === b.block && s.logIndex < b.logIndex)).at(-1);
        const base = { id: b.id, amount: dec(b.amount, 18), amountRaw: b.amount.toString() };
        if (!prior) {
          rows.push({
            ...base,
            pricePairedAtBurn: null,
            pricePairedAtBurnRaw: null,
            priceUsdcAtBurn: null,
            priceUsdcAtBurnRaw: null,
            valuePaired: null,
            valuePairedRaw: null,
            valueUsdc: null,
            valueUsdcRaw: null,
          });
          continue;
        }
        const usdcPrice = l.paired === "usdc" ? prior.price : (prior.price * (await ethPriceBefore(prior.block, prior.logIndex))) / E36;
        rows.push({
          ...base,
          pricePairedAtBurn: dec(prior.price, pairedDecimals + 18),
          pricePairedAtBurnRaw: prior.price.toString(),
          priceUsdcAtBurn: dec(usdcPrice, 24),
          priceUsdcAtBurnRaw: usdcPrice.toString(),
          valuePaired: dec((b.amount * prior.price) / E36, pairedDecimals),
          valuePairedRaw: ((b.amount * prior.price) / E36).toString(),
          valueUsdc: dec((b.amount * usdcPrice) / E36, 6),
          valueUsdcRaw: ((b.amount * usdcPrice) / E36).toString(),
        });
      }
      expect(rows.some((r) => r.valueUsdcRaw !== null && r.valueUsdcRaw !== "0")).toBe(true);
      const a = await get(`/burns/${l.token}`);
      expect(a.status, a.text).toBe(200);
      burnsResponse.parse(a.json);
      const pick = (o: Record<string, unknown>) => Object.fromEntries(BURN_FIELDS.split(" ").map((k) => [k, o[k]]));
      expect(a.json.items.map(pick)).toEqual(rows);
      // Each listed burn carries its log index: with its transaction, the key of its proof.
      const listed = a.json.items[0] as { id: string; txHash: string; logIndex: number };
      expect(listed.id).toBe(`${listed.txHash}-${listed.logIndex}`);
      const proof = await get(`/burns/${listed.txHash}/${listed.logIndex}`);
      expect(proof.status, proof.text).toBe(200);
      expect((await gqlToken(l.token, "DAY")).burns.edges.map((e: { node: Record<string, unknown> }) => e.node)).toEqual(rows);
    });
  });

  describe("bad input", () => {
    it("answers 4xx with { error }, never a 500", async () => {
      const cases: [string, number][] = [
        [`/tokens/${usdcToken.token}/candles?period=week`, 400],
        [`/tokens/${usdcToken.token}/candles?limit=0`, 400],
        [`/tokens/${usdcToken.token}/candles?limit=1001`, 400],
        [`/tokens/${usdcToken.token}/candles?from=yesterday`, 400],
        [`/tokens/${usdcToken.token}/candles?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z`, 400],
        [`/tokens/0x${"12".repeat(20)}/candles`, 404],
        [`/tokens/0x${"12".repeat(20)}/market`, 404],
        [`/tokens/not-an-address/market`, 400],
        [`/burns/0x${"12".repeat(20)}`, 404],
      ];
      for (const [path, status] of cases) {
        const a = await get(path);
        expect(a.status, `${path}: ${a.text}`).toBe(status);
        expect(Object.keys(a.json)).toEqual(["error", "code"]);
        expect(a.json.code).toBe(status === 404 ? "NOT_FOUND" : "BAD_REQUEST");
      }
      const g = await h.gql(`{ token(address: "${usdcToken.token}") { candles(limit: 0) { start } } }`);
      expect(g.json.errors?.[0]?.message).toMatch(/limit/);
    });

    it("a time range keeps only the buckets starting in it", async () => {
      const all = (await get(`/tokens/${usdcToken.token}/candles?period=hour&limit=1000`)).json.items as { start: string }[];
      expect(all.length).toBeGreaterThanOrEqual(2);
      const from = all[1]!.start;
      const some = (await get(`/tokens/${usdcToken.token}/candles?period=hour&from=${from}`)).json.items as { start: string }[];
      expect(some).toEqual(all.slice(1));
      const one = (await get(`/tokens/${usdcToken.token}/candles?period=hour&limit=1`)).json.items as { start: string }[];
      expect(one).toEqual(all.slice(-1));
    });
  });
}
