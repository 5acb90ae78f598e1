/**
 * Deploys the real Uniswap stack from the bytecode Uniswap publishes on npm: Permit2
 * (compiled from its vendored source), the v3 factory, SwapRouter and position manager,
 * a WETH/USDC v3 pool with liquidity, the v4 PoolManager and PositionManager, and the
 * UniversalRouter. Helpers to create v4 pools and add liquidity live here too.
 */
import { type Abi, type Address, encodeAbiParameters, encodePacked, erc20Abi, maxUint48, maxUint160, maxUint256, parseAbi } from "viem";
import { POOL_KEY_ABI, ZERO_ADDRESS, type PoolKey, sortCurrencies, sqrtPriceX96FromRatio, fullRangeTicks } from "../common/uniswap.js";
import { compilePermit2 } from "./compile.js";
import { type DevnetContext, uniswapArtifact } from "./context.js";

const V3_POOL_INIT_CODE_HASH = "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54";
const FAR_DEADLINE = 2n ** 48n;

export const v3FactoryAbi = parseAbi([
  "function createPool(address tokenA, address tokenB, uint24 fee) returns (address pool)",
  "function getPool(address, address, uint24) view returns (address)",
]);
export const v3PoolAbi = parseAbi([
  "function initialize(uint160 sqrtPriceX96)",
  "function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)",
  "function liquidity() view returns (uint128)",
]);
export const v3PositionManagerAbi = parseAbi([
  "struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }",
  "function mint(MintParams params) payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)",
]);
export const permit2Abi = parseAbi([
  "function approve(address token, address spender, uint160 amount, uint48 expiration)",
  "function allowance(address user, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)",
]);
export const v4PoolManagerAbi = parseAbi([
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "function initialize(PoolKey key, uint160 sqrtPriceX96) returns (int24 tick)",
  "function extsload(bytes32 slot) view returns (bytes32)",
]);
export const v4PositionManagerAbi = parseAbi([
  "function modifyLiquidities(bytes unlockData, uint256 deadline) payable",
  "function nextTokenId() view returns (uint256)",
]);
const wethAbi = parseAbi(["function deposit() payable"]);
const usdcMintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

export type UniswapContracts = {
  permit2: Address;
  v3Factory: Address;
  v3Router: Address;
  v3PositionManager: Address;
  v3WethUsdcPool: Address;
  v4PoolManager: Address;
  v4PositionManager: Address;
  universalRouter: Address;
};

/** ETH price the devnet starts at, in USDC base units per 1 ETH. */
export const DEVNET_ETH_PRICE_USDC = 3_000_000_000n;
export const V3_WETH_USDC_FEE = 500;

export async function deployUniswap(ctx: DevnetContext, tokens: { usdc: Address; weth: Address }): Promise<UniswapContracts> {
  const operator = ctx.account.address;
  const permit2 = await ctx.deploy(compilePermit2());
  const v3Factory = await ctx.deploy(uniswapArtifact("@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json"));
  const v3Router = await ctx.deploy(uniswapArtifact("@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json"), [v3Factory, tokens.weth]);
  const v3PositionManager = await ctx.deploy(
    uniswapArtifact("@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json"),
    [v3Factory, tokens.weth, ZERO_ADDRESS],
  );
  const v4PoolManager = await ctx.deploy(uniswapArtifact("@uniswap/v4-core/out/PoolManager.sol/PoolManager.json"), [operator]);
  const v4PositionManager = await ctx.deploy(uniswapArtifact("@uniswap/v4-periphery/foundry-out/PositionManager.sol/PositionManager.json"), [
    v4PoolManager,
    permit2,
    300_000n,
    ZERO_ADDRESS,
    tokens.weth,
  ]);
  const universalRouter = await ctx.deploy(uniswapArtifact("@uniswap/universal-router/artifacts/contracts/UniversalRouter.sol/UniversalRouter.json"), [
    {
      permit2,
      weth9: tokens.weth,
      v2Factory: ZERO_ADDRESS,
      v3Factory,
      pairInitCodeHash: `0x${"00".repeat(32)}`,
      poolInitCodeHash: V3_POOL_INIT_CODE_HASH,
      v4PoolManager,
      v3NFTPositionManager: v3PositionManager,
      v4PositionManager,
      spokePool: ZERO_ADDRESS,
    },
  ]);

  // WETH/USDC 0.05% pool at the devnet ETH price, with deep full-range liquidity.
  const wethAmount = 2_000n * 10n ** 18n;
  const usdcAmount = (wethAmount * DEVNET_ETH_PRICE_USDC) / 10n ** 18n;
  const v3WethUsdcPool = await createV3Pool(
    ctx,
    { v3Factory, v3PositionManager },
    {
      tokenA: tokens.weth,
      tokenB: tokens.usdc,
      amountA: wethAmount,
      amountB: usdcAmount,
      fee: V3_WETH_USDC_FEE,
      fund: async () => {
        await ctx.write(tokens.weth, wethAbi, "deposit", [], wethAmount);
        await ctx.write(tokens.usdc, usdcMintAbi, "mint", [operator, usdcAmount]);
      },
    },
  );

  return { permit2, v3Factory, v3Router, v3PositionManager, v3WethUsdcPool, v4PoolManager, v4PositionManager, universalRouter };
}

/**
 * Creates and initialises a v3 pool at the price amountB/amountA and adds full-range
 * liquidity of exactly those amounts from the operator (funded by `fund`).
 */
export async function createV3Pool(
  ctx: DevnetContext,
  uni: { v3Factory: Address; v3PositionManager: Address },
  p: { tokenA: Address; tokenB: Address; amountA: bigint; amountB: bigint; fee: number; fund: () => Promise<void> },
): Promise<Address> {
  const [token0, token1] = sortCurrencies(p.tokenA, p.tokenB);
  const [amount0, amount1] = token0 === p.tokenA ? [p.amountA, p.amountB] : [p.amountB, p.amountA];
  await ctx.write(uni.v3Factory, v3FactoryAbi, "createPool", [token0, token1, p.fee]);
  const pool = await ctx.read<Address>(uni.v3Factory, v3FactoryAbi, "getPool", [token0, token1, p.fee]);
  await ctx.write(pool, v3PoolAbi, "initialize", [sqrtPriceX96FromRatio(amount1, amount0)]);
  await p.fund();
  for (const token of [token0, token1]) await ctx.write(token, erc20Abi, "approve", [uni.v3PositionManager, maxUint256]);
  const tickSpacing = p.fee === 500 ? 10 : p.fee === 3000 ? 60 : p.fee === 10000 ? 200 : 1;
  const [tickLower, tickUpper] = fullRangeTicks(tickSpacing);
  await ctx.write(uni.v3PositionManager, v3PositionManagerAbi as Abi, "mint", [
    {
      token0,
      token1,
      fee: p.fee,
      tickLower,
      tickUpper,
      amount0Desired: amount0,
      amount1Desired: amount1,
      amount0Min: 0n,
      amount1Min: 0n,
      recipient: ctx.account.address,
      deadline: FAR_DEADLINE,
    },
  ]);
  return pool;
}

/** ERC20 → Permit2 → spender allowance, the approval path of PositionManager and UniversalRouter. */
export async function approveViaPermit2(ctx: DevnetContext, permit2: Address, token: Address, spender: Address): Promise<void> {
  await ctx.write(token, erc20Abi, "approve", [permit2, maxUint256]);
  await ctx.write(permit2, permit2Abi, "approve", [token, spender, maxUint160, maxUint48]);
}

/**
 * Initialises a v4 pool (no hook) and mints a full-range position of `liquidity` from the
 * operator through the PositionManager (MINT_POSITION + SETTLE_PAIR).
 */
export async function createV4PoolWithLiquidity(
  ctx: DevnetContext,
  uni: Pick<UniswapContracts, "permit2" | "v4PoolManager" | "v4PositionManager">,
  p: { key: PoolKey; sqrtPriceX96: bigint; liquidity: bigint; amount0Max: bigint; amount1Max: bigint },
): Promise<void> {
  await ctx.write(uni.v4PoolManager, v4PoolManagerAbi as Abi, "initialize", [p.key, p.sqrtPriceX96]);
  for (const token of [p.key.currency0, p.key.currency1]) await approveViaPermit2(ctx, uni.permit2, token, uni.v4PositionManager);
  const [tickLower, tickUpper] = fullRangeTicks(p.key.tickSpacing);
  const actions = encodePacked(["uint8", "uint8"], [0x02, 0x0d]); // MINT_POSITION, SETTLE_PAIR
  const mint = encodeAbiParameters(
    [POOL_KEY_ABI, { type: "int24" }, { type: "int24" }, { type: "uint256" }, { type: "uint128" }, { type: "uint128" }, { type: "address" }, { type: "bytes" }],
    [p.key, tickLower, tickUpper, p.liquidity, p.amount0Max, p.amount1Max, ctx.account.address, "0x"],
  );
  const settle = encodeAbiParameters([{ type: "address" }, { type: "address" }], [p.key.currency0, p.key.currency1]);
  const unlockData = encodeAbiParameters([{ type: "bytes" }, { type: "bytes[]" }], [actions, [mint, settle]]);
  await ctx.write(uni.v4PositionManager, v4PositionManagerAbi, "modifyLiquidities", [unlockData, FAR_DEADLINE]);
}
