/**
 * Foundation smoke suite: the devnet's contracts exist, the real UniversalRouter swaps
 * through v3 and v4 pools, and a burn travels chain → indexer → API.
 */
import { type Abi, type Address, decodeEventLog, erc20Abi, maxUint48, maxUint160, maxUint256, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEAD_ADDRESS } from "../common/constants.js";
import { Q96, sortCurrencies, ZERO_ADDRESS } from "../common/uniswap.js";
import { compileProject } from "../devnet/compile.js";
import { waitForIndexed } from "../devnet/ponder.js";
import { createV4PoolWithLiquidity, permit2Abi } from "../devnet/uniswap.js";
import { routerPlan, UNIVERSAL_ROUTER_ABI, v3ExactIn, v4ExactInSingle } from "../common/universal-router.js";
import { swapInPool } from "./helpers/actions.js";
import { createDatabase, devnetAs, startTestPonder, testEnv } from "./helpers/env.js";

const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);
const v4SwapEvent = parseAbi([
  "event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)",
]);
const DEADLINE = 2n ** 40n;

describe("devnet", () => {
  const { deployments } = testEnv();
  const c = deployments.contracts as Record<string, Address>;
  const operator = devnetAs(0);
  const trader = devnetAs(1);

  it("has code at every deployed address, at the addresses of every run", async () => {
    for (const name of [
      "usdc",
      "weth",
      "permit2",
      "v3Factory",
      "v3Router",
      "v3PositionManager",
      "v3WethUsdcPool",
      "v4PoolManager",
      "v4PositionManager",
      "universalRouter",
    ]) {
      const code = await operator.publicClient.getCode({ address: c[name]! });
      expect(code && code.length > 2, `${name} has code`).toBe(true);
    }
    // Deterministic deployment: the operator's first contract is always at the same address.
    expect(c.usdc).toBe("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    expect(await operator.read(c.usdc!, erc20Abi, "decimals")).toBe(6);
  });

  it("swaps USDC → WETH through the UniversalRouter's v3 command", async () => {
    const amountIn = 3_000_000_000n; // 3,000 USDC at 3,000 USDC/ETH
    await operator.write(c.usdc!, mintAbi, "mint", [trader.account.address, amountIn]);
    await trader.write(c.usdc!, erc20Abi, "approve", [c.permit2!, maxUint256]);
    await trader.write(c.permit2!, permit2Abi, "approve", [c.usdc!, c.universalRouter!, maxUint160, maxUint48]);
    const before = await trader.read<bigint>(c.weth!, erc20Abi, "balanceOf", [trader.account.address]);
    const { commands, inputs } = routerPlan([
      v3ExactIn({ recipient: trader.account.address, amountIn, amountOutMin: 1n, path: { tokens: [c.usdc!, c.weth!], fees: [500] }, payerIsUser: true }),
    ]);
    await trader.write(c.universalRouter!, UNIVERSAL_ROUTER_ABI as Abi, "execute", [commands, inputs, DEADLINE]);
    const received = (await trader.read<bigint>(c.weth!, erc20Abi, "balanceOf", [trader.account.address])) - before;
    // 0.05% fee and a little price impact on a 6M USDC pool: just under 1 WETH.
    expect(received).toBeGreaterThan(99n * 10n ** 16n);
    expect(received).toBeLessThan(10n ** 18n);
  });

  it("swaps in a v4 pool through the UniversalRouter's V4_SWAP command", async () => {
    const token = await operator.deploy(compileProject().DevnetUSDC!);
    const [currency0, currency1] = sortCurrencies(c.usdc!, token);
    const key = { currency0, currency1, fee: 3000, tickSpacing: 60, hooks: ZERO_ADDRESS };
    const supply = 10n ** 13n;
    await operator.write(c.usdc!, mintAbi, "mint", [operator.account.address, supply]);
    await operator.write(token, mintAbi, "mint", [operator.account.address, supply]);
    await createV4PoolWithLiquidity(operator, c as never, { key, sqrtPriceX96: Q96, liquidity: 10n ** 12n, amount0Max: supply, amount1Max: supply });

    const amountIn = 1_000_000_000n; // 1,000 USDC
    await operator.write(c.usdc!, mintAbi, "mint", [trader.account.address, amountIn]);
    const zeroForOne = currency0 === c.usdc;
    const { commands, inputs } = routerPlan([v4ExactInSingle({ poolKey: key, zeroForOne, amountIn, amountOutMin: 1n, payerIsUser: true })]);
    const hash = await trader.write(c.universalRouter!, UNIVERSAL_ROUTER_ABI as Abi, "execute", [commands, inputs, DEADLINE]);
    const receipt = await trader.publicClient.getTransactionReceipt({ hash });
    const swapLog = receipt.logs.find(
      (l) => l.address.toLowerCase() === c.v4PoolManager!.toLowerCase() && l.topics[0] === "0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f",
    );
    expect(swapLog).toBeDefined();
    const swap = decodeEventLog({ abi: v4SwapEvent, data: swapLog!.data, topics: swapLog!.topics });
    // v4 amounts are from the swapper's view: the input is negative.
    expect(zeroForOne ? swap.args.amount0 : swap.args.amount1).toBe(-amountIn);
    expect(swap.args.fee).toBe(3000);
    const out = await trader.read<bigint>(token, erc20Abi, "balanceOf", [trader.account.address]);
    expect(out).toBe(BigInt(zeroForOne ? swap.args.amount1 : swap.args.amount0));
    expect(out).toBeGreaterThan((amountIn * 99n) / 100n); // 0.3% fee, negligible impact
  });
});

describe("burn slice: chain → indexer → API", () => {
  let ponder: Awaited<ReturnType<typeof startTestPonder>>;
  const burner = devnetAs(2);

  beforeAll(async () => {
    ponder = await startTestPonder(await createDatabase("smoke"));
  });
  afterAll(async () => {
    await ponder?.stop();
  });

  it("indexes a transfer to the dead address and serves it over REST and GraphQL", async () => {
    const c = testEnv().deployments.contracts as Record<string, Address>;
    const token = c.usdcPairedToken!;
    await swapInPool(burner, c, token, c.usdc!, 1_000_000_000n);
    const amount = 1_250_000_000_000_000_000n; // 1.25 tokens
    const hash = await burner.write(token, erc20Abi, "transfer", [DEAD_ADDRESS, amount]);
    const receipt = await burner.publicClient.getTransactionReceipt({ hash });
    await waitForIndexed(ponder.url, receipt.blockNumber).catch((error) => {
      throw new Error(`${error.message}\n${ponder.logs.slice(-20).join("\n")}`);
    });

    const health = await fetch(`${ponder.url}/api/v1/health`).then((r) => r.json());
    expect(health).toMatchObject({ status: "ok", indexer: { ready: true }, workers: [] });
    expect(health.indexer.block).toBeGreaterThanOrEqual(Number(receipt.blockNumber));
    expect(typeof health.uptimeSeconds).toBe("number");

    const res = await fetch(`${ponder.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `{ burns(first: 5, filter: { token: "${token}" }) { edges { node { token { address } from amount amountRaw txHash kind } } } }`,
      }),
    });
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    const nodes = body.data.burns.edges.map((e: { node: unknown }) => e.node);
    expect(nodes).toContainEqual({
      token: { address: token },
      from: burner.account.address,
      amount: "1.25",
      amountRaw: "1250000000000000000",
      txHash: hash,
      kind: "ORGANIC",
    });

    const missing = await fetch(`${ponder.url}/api/v1/does-not-exist`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "no route GET /api/v1/does-not-exist", code: "NOT_FOUND" });
  });
});
