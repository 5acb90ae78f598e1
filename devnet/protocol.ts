/**
 * Deploys the protocol side of the devnet on top of Uniswap, in a fixed order from the
 * operator (so every address is the same on every run): the Clanker v4 launcher, LP locker
 * and fee locker, the protocol registry, the Avantis perps exchange, the secondary asset with
 * its v3 USDC pool and ERC-4626 vault; funds the devnet's test and market accounts; and
 * launches the protocol token plus two enrolled creator tokens (one USDC-, one WETH-paired).
 */
import {
  type Address,
  type Hex,
  type TransactionReceipt,
  concat,
  encodeDeployData,
  erc20Abi,
  getAddress,
  keccak256,
  maxUint48,
  maxUint160,
  maxUint256,
  numberToHex,
  parseAbi,
  parseEther,
  slice,
  toHex,
  zeroHash,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { registryAbi } from "../common/abis/registry.js";
import { FeeIn, clankerFactoryAbi } from "../common/abis/clanker.js";
import { PERPS_PRECISION } from "../common/abis/perps.js";
import { DEFAULT_SPLIT, LAST_AUCTION_BLOCK_AFTER_LAUNCH } from "../common/constants.js";
import {
  DEFAULT_POOL_FEES,
  DEFAULT_SNIPER_FEES,
  DYNAMIC_BASIC_FEES,
  type DeploymentConfig,
  type DynamicPoolFees,
  type LaunchFees,
  type TokenCreated,
  buildDeploymentConfig,
  launchSplitRewards,
  parseTokenCreated,
} from "../common/deploy-config.js";
import { type Artifact, type Artifacts, compileProject } from "./compile.js";
import { type DevnetContext, createDevnetContext } from "./context.js";
import { type UniswapContracts, createV3Pool, permit2Abi } from "./uniswap.js";

/** anvil's default mnemonic: account i is `m/44'/60'/0'/0/i`; account 0 is the operator. */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";
/** The devnet's roles among anvil's ten accounts (0 is the operator; 1 and 2 are free for tests). */
export const DEVNET_ACCOUNTS = {
  wethCreator: 3,
  usdcCreator: 4,
  traders: [5, 6, 7, 8],
  /** Sets the oracle answers and executes perps orders; never the operator. */
  keeper: 9,
  /**
   * Bids in every new launch's sniper auction (the market simulator). Not one of the ten accounts
   * anvil funds: the deploy gives it ETH, wraps some into WETH and makes its approvals.
   */
  auctionBidder: 10,
} as const;

/** A HD account of anvil's default mnemonic. */
export function devnetAccount(index: number) {
  return mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: index });
}

/** Its private key, for clients that take one. */
export function devnetPrivateKey(index: number): Hex {
  return toHex(devnetAccount(index).getHdKey().privateKey!);
}

const USDC = (whole: bigint) => whole * 10n ** 6n;
const TOKENS = (whole: bigint) => whole * 10n ** 18n;

/** USDC each of anvil accounts 1..9 receives at deploy (only the operator can mint). */
export const FUNDED_ACCOUNT_USDC = USDC(1_000_000n);
/** The perps exchange's reserve, out of which profits are paid. */
export const PERPS_PROFIT_RESERVE_USDC = USDC(5_000_000n);
/** Perps pairs by index: feed name of each. Minimum leveraged position and leverage bounds are per pair on chain. */
export const PERPS_PAIRS = ["ETH_USD", "BTC_USD", "ASSET_USD"] as const;
export const PERPS_MIN_LEV_POS_USDC = USDC(100n);
export const PERPS_MIN_LEVERAGE = 2n * PERPS_PRECISION;
export const PERPS_MAX_LEVERAGE = 50n * PERPS_PRECISION;
/** Every desk trades from the single operator wallet: room for many trades per pair. */
export const PERPS_MAX_TRADES_PER_PAIR = 50n;

/** The secondary asset starts at 2 USDC, in a 0.3% v3 pool of 500k ASSET / 1M USDC. */
export const ASSET_PRICE_FEED = 2n * 10n ** 8n;
const ASSET_POOL = { asset: TOKENS(500_000n), usdc: USDC(1_000_000n), fee: 3000 };

/** Launch parameters of the devnet's tokens (starting market caps in the paired token's base units). */
export const DEVNET_TOKENS = {
  protocol: { name: "Launchpad Protocol", symbol: "LAUNCH", startingMarketCap: USDC(10_000n) },
  usdcCreator: { name: "Devnet USDC Creator", symbol: "UCRT", startingMarketCap: USDC(10_000n) },
  wethCreator: { name: "Devnet WETH Creator", symbol: "WCRT", startingMarketCap: TOKENS(5n) },
} as const;

export type ProtocolBase = UniswapContracts & { usdc: Address; weth: Address; priceFeeds: Record<string, Address> };

export type ProtocolContracts = {
  launcher: Address;
  lpLocker: Address;
  feeLocker: Address;
  clankerHook: Address;
  /** The dynamic-fee V2 hook, enabled beside the static one (with the same locker). */
  clankerDynamicHook: Address;
  mevModule: Address;
  registry: Address;
  perpsTrading: Address;
  perpsStorage: Address;
  perpsCallbacks: Address;
  secondaryAsset: Address;
  assetVault: Address;
  secondaryAssetPool: Address;
  protocolToken: Address;
  wethPairedToken: Address;
  usdcPairedToken: Address;
};

/** ETH the deploy sends the auction bidder, and how much of it the bidder wraps into WETH right away. */
export const AUCTION_BIDDER_ETH = parseEther("100");
export const AUCTION_BIDDER_WETH = parseEther("10");

const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);
const wethDepositAbi = parseAbi(["function deposit() payable"]);
const feedAbi = parseAbi(["function setUpdater(address updater)"]);

export async function deployProtocol(
  ctx: DevnetContext,
  base: ProtocolBase,
  progress: (step: string) => void = () => {},
): Promise<{ contracts: ProtocolContracts; priceFeeds: Record<string, Address> }> {
  const artifacts = compileProject();
  const art = (name: string) => artifacts[name]!;
  const operator = ctx.account.address;
  const keeper = devnetAccount(DEVNET_ACCOUNTS.keeper).address;

  progress("deploying the secondary asset feed; the keeper may set every feed");
  const priceFeeds: Record<string, Address> = { ...base.priceFeeds, ASSET_USD: await ctx.deploy(art("PriceFeed"), [8, "ASSET / USD", ASSET_PRICE_FEED]) };
  for (const name of Object.keys(priceFeeds).sort()) await ctx.write(priceFeeds[name]!, feedAbi, "setUpdater", [keeper]);

  progress("deploying the Clanker launcher, LP locker and fee locker");
  const { feeLocker, launcher, lpLocker } = await deployClankerLockers(ctx, base);

  progress("deploying the protocol registry");
  const registry = await ctx.deploy(art("ProtocolRegistry"), [operator]);

  progress("deploying the perps exchange");
  const perps = await deployPerps(ctx, artifacts, base.usdc, priceFeeds);

  progress("deploying the secondary asset, its USDC pool and its vault");
  const secondaryAsset = await ctx.deploy(art("SecondaryAsset"), ["Devnet Secondary Asset", "ASSET", operator]);
  const assetVault = await ctx.deploy(art("AssetVault"), [secondaryAsset]);
  const secondaryAssetPool = await createV3Pool(ctx, base, {
    tokenA: secondaryAsset,
    tokenB: base.usdc,
    amountA: ASSET_POOL.asset,
    amountB: ASSET_POOL.usdc,
    fee: ASSET_POOL.fee,
    fund: async () => {
      await ctx.write(secondaryAsset, mintAbi, "mint", [operator, ASSET_POOL.asset]);
      await ctx.write(base.usdc, mintAbi, "mint", [operator, ASSET_POOL.usdc]);
    },
  });

  progress("funding anvil accounts 1..9 with USDC");
  for (let i = 1; i <= 9; i++) await ctx.write(base.usdc, mintAbi, "mint", [devnetAccount(i).address, FUNDED_ACCOUNT_USDC]);

  progress("deploying the V2 hooks (static and dynamic fee, at mined addresses) and the sniper auction; enabling them");
  const { clankerHook, mevModule, clankerDynamicHook } = await deployClankerHooks(ctx, base, { feeLocker, launcher, lpLocker });

  progress("launching the protocol token and the devnet creator tokens");
  const launch = async (config: DeploymentConfig) => (await launchToken(ctx, launcher, config)).token;
  const common = { chainId: ctx.chainId, locker: lpLocker, fees: devnetLaunchFees({ clankerHook, mevModule }) };
  const protocolToken = await launch(
    buildDeploymentConfig({
      ...common,
      ...DEVNET_TOKENS.protocol,
      tokenAdmin: operator,
      salt: keccak256(toHex(DEVNET_TOKENS.protocol.symbol)),
      pairedToken: base.usdc,
      rewards: [{ admin: operator, recipient: operator, bps: 10_000, feeIn: FeeIn.Paired }],
    }),
  );
  const creatorToken = async (
    spec: (typeof DEVNET_TOKENS)["usdcCreator"] | (typeof DEVNET_TOKENS)["wethCreator"],
    pairedToken: Address,
    creatorIndex: number,
  ) => {
    const creator = devnetAccount(creatorIndex).address;
    const token = await launch(
      buildDeploymentConfig({
        ...common,
        ...spec,
        tokenAdmin: creator,
        salt: keccak256(toHex(spec.symbol)),
        pairedToken,
        rewards: launchSplitRewards({ operator, creator, split: DEFAULT_SPLIT }),
      }),
    );
    const { assetBps, perpBps, creatorBps } = DEFAULT_SPLIT;
    await ctx.write(registry, registryAbi, "enroll", [token, creator, assetBps, perpBps, creatorBps, zeroHash]);
    return token;
  };
  const wethPairedToken = await creatorToken(DEVNET_TOKENS.wethCreator, base.weth, DEVNET_ACCOUNTS.wethCreator);
  const usdcPairedToken = await creatorToken(DEVNET_TOKENS.usdcCreator, base.usdc, DEVNET_ACCOUNTS.usdcCreator);

  progress("mining past the launches' sniper auctions");
  await advancePastAuction(ctx.publicClient, MEV_MODULE_MAX_SECONDS + 1);

  progress("funding the auction bidder: ETH, WETH, approvals to the MEV module, Permit2 and the router");
  await prepareAuctionBidder(ctx, { weth: base.weth, permit2: base.permit2, universalRouter: base.universalRouter, mevModule });

  return {
    contracts: {
      launcher,
      lpLocker,
      feeLocker,
      clankerHook,
      clankerDynamicHook,
      mevModule,
      registry,
      ...perps,
      secondaryAsset,
      assetVault,
      secondaryAssetPool,
      protocolToken,
      wethPairedToken,
      usdcPairedToken,
    },
    priceFeeds,
  };
}

/**
 * The Clanker fee locker, launcher and LP locker, owned by the context's account, which is also
 * the launcher's team fee recipient; the LP locker is the fee locker's depositor. No hook yet.
 */
export async function deployClankerLockers(
  ctx: DevnetContext,
  base: Pick<UniswapContracts, "v4PoolManager" | "v4PositionManager" | "permit2" | "universalRouter">,
): Promise<{ feeLocker: Address; launcher: Address; lpLocker: Address }> {
  const artifacts = compileProject();
  const art = (name: string) => artifacts[name]!;
  const owner = ctx.account.address;
  const feeLocker = await ctx.deploy(art("ClankerFeeLocker"), [owner]);
  const launcher = await ctx.deploy(art("Clanker"), [owner, base.v4PoolManager]);
  const lpLocker = await ctx.deploy(art("ClankerLpLocker"), [
    owner,
    launcher,
    feeLocker,
    base.v4PositionManager,
    base.permit2,
    base.universalRouter,
    base.v4PoolManager,
  ]);
  await ctx.write(feeLocker, art("ClankerFeeLocker").abi, "addDepositor", [lpLocker]);
  // Deployments open once the team fee recipient (who `claimTeamFees` pays) is named.
  await ctx.write(launcher, art("Clanker").abi, "initialize", [owner]);
  return { feeLocker, launcher, lpLocker };
}

/**
 * The static-fee and dynamic-fee V2 hooks (at mined addresses) and the sniper auction, owned by the
 * context's account, enabled on the launcher with the LP locker; the module is a fee-locker depositor.
 */
export async function deployClankerHooks(
  ctx: DevnetContext,
  base: Pick<UniswapContracts, "v4PoolManager"> & { weth: Address },
  core: { feeLocker: Address; launcher: Address; lpLocker: Address },
): Promise<{ clankerHook: Address; mevModule: Address; clankerDynamicHook: Address }> {
  const artifacts = compileProject();
  const art = (name: string) => artifacts[name]!;
  const owner = ctx.account.address;
  const { feeLocker, launcher, lpLocker } = core;
  const clankerHook = await deployHookAt(ctx, art("ClankerHookStaticFeeV2"), [base.v4PoolManager, launcher], HOOK_PERMISSIONS);
  // Base's module settings (its constructor's): round 1's auction block 2 blocks after the launch, then one
  // every 2 blocks while won, 5 rounds at most, 0.0001 WETH per unit of gas price above the peg.
  const mevModule = await ctx.deploy(art("ClankerSniperAuctionV2"), [owner, launcher, feeLocker, base.weth]);
  await ctx.write(feeLocker, art("ClankerFeeLocker").abi, "addDepositor", [mevModule]);
  await ctx.write(launcher, art("Clanker").abi, "setHook", [clankerHook, true]);
  await ctx.write(launcher, art("Clanker").abi, "setMevModule", [mevModule, true]);
  await ctx.write(launcher, art("Clanker").abi, "setLocker", [lpLocker, clankerHook, true]);

  const clankerDynamicHook = await deployHookAt(ctx, art("ClankerHookDynamicFeeV2"), [base.v4PoolManager, launcher], HOOK_PERMISSIONS);
  await ctx.write(launcher, art("Clanker").abi, "setHook", [clankerDynamicHook, true]);
  await ctx.write(launcher, art("Clanker").abi, "setLocker", [lpLocker, clankerDynamicHook, true]);
  return { clankerHook, mevModule, clankerDynamicHook };
}

/**
 * Gives the auction bidder (an account anvil does not fund) ETH from the operator, wraps part
 * of it into WETH and approves WETH to the MEV module (which pulls the bids) and, through
 * Permit2, to the UniversalRouter (the auction-block buy pays WETH), so that the first launch's
 * auction needs no preparation in its no-trade blocks.
 */
async function prepareAuctionBidder(ctx: DevnetContext, c: { weth: Address; permit2: Address; universalRouter: Address; mevModule: Address }): Promise<void> {
  const bidder = createDevnetContext(ctx.rpcUrl, ctx.chainId, devnetPrivateKey(DEVNET_ACCOUNTS.auctionBidder));
  const hash = await ctx.walletClient.sendTransaction({
    account: ctx.account,
    chain: ctx.walletClient.chain,
    to: bidder.account.address,
    value: AUCTION_BIDDER_ETH,
  });
  const funded = await ctx.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (funded.status !== "success") throw new Error("funding the auction bidder failed");
  await bidder.write(c.weth, wethDepositAbi, "deposit", [], AUCTION_BIDDER_WETH);
  await bidder.write(c.weth, erc20Abi, "approve", [c.mevModule, maxUint256]);
  await bidder.write(c.weth, erc20Abi, "approve", [c.permit2, maxUint256]);
  await bidder.write(c.permit2, permit2Abi, "approve", [c.weth, c.universalRouter, maxUint160, maxUint48]);
}

async function deployPerps(ctx: DevnetContext, artifacts: Artifacts, usdc: Address, priceFeeds: Record<string, Address>) {
  const storageAbi = artifacts.AvantisTradingStorage!.abi;
  const perpsStorage = await ctx.deploy(artifacts.AvantisTradingStorage!, [ctx.account.address, usdc]);
  const perpsTrading = await ctx.deploy(artifacts.AvantisTrading!, [ctx.account.address, perpsStorage]);
  await ctx.write(perpsStorage, storageAbi, "setTrading", [perpsTrading]);
  await ctx.write(perpsStorage, storageAbi, "setMaxTradesPerPair", [PERPS_MAX_TRADES_PER_PAIR]);
  await ctx.write(perpsStorage, storageAbi, "setMaxPendingMarketOrders", [PERPS_MAX_TRADES_PER_PAIR]);
  for (const feed of PERPS_PAIRS) {
    await ctx.write(perpsStorage, storageAbi, "addPair", [priceFeeds[feed]!, PERPS_MIN_LEV_POS_USDC, PERPS_MIN_LEVERAGE, PERPS_MAX_LEVERAGE]);
  }
  await ctx.write(usdc, mintAbi, "mint", [perpsStorage, PERPS_PROFIT_RESERVE_USDC]);
  // The devnet exchange emits the callback events itself.
  return { perpsTrading, perpsStorage, perpsCallbacks: perpsTrading };
}

/** A V2 hook's permission bits, which its address must carry in its low 14 bits (as Base's static and dynamic V2 hooks: 0x28CC). */
export const HOOK_PERMISSIONS = 0x28cc;
const HOOK_FLAG_MASK = (1n << 14n) - 1n;
/** The deterministic CREATE2 deployer anvil ships with. */
export const CREATE2_DEPLOYER: Address = "0x4e59b44847b379578588920ca78fbf26c0b4956c";

/** The first salt whose CREATE2 address through `deployer` carries exactly `flags` in its low 14 bits. */
export function mineHookSalt(deployer: Address, initCode: Hex, flags: number): { salt: Hex; address: Address } {
  const initCodeHash = keccak256(initCode);
  for (let i = 0; i < 1_000_000; i++) {
    const salt = numberToHex(i, { size: 32 });
    const address = slice(keccak256(concat(["0xff", deployer, salt, initCodeHash])), 12);
    if ((BigInt(address) & HOOK_FLAG_MASK) === BigInt(flags)) return { salt, address: getAddress(address) };
  }
  throw new Error(`no hook salt found for flags 0x${flags.toString(16)}`);
}

/** Deploys a hook through the CREATE2 deployer at a mined address carrying its permission flags. */
export async function deployHookAt(ctx: DevnetContext, artifact: Artifact, args: unknown[], flags: number): Promise<Address> {
  const initCode = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args });
  const { salt, address } = mineHookSalt(CREATE2_DEPLOYER, initCode, flags);
  const hash = await ctx.walletClient.sendTransaction({
    account: ctx.account,
    chain: ctx.walletClient.chain,
    to: CREATE2_DEPLOYER,
    data: concat([salt, initCode]),
    gas: 10_000_000n,
  });
  const receipt = await ctx.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  const code = await ctx.publicClient.getCode({ address });
  if (receipt.status !== "success" || !code || code === "0x") throw new Error(`the hook was not deployed at ${address}`);
  return address;
}

/** How long the hook consults a pool's MEV module at most; until then the locker does not collect. */
export const MEV_MODULE_MAX_SECONDS = 120;

/**
 * Mines past every auction block a launch just made can have (round 1's, then one every
 * `AUCTION_BLOCKS_BETWEEN_ROUNDS` while won, `AUCTION_MAX_ROUNDS` rounds), and moves the chain's
 * clock `seconds` ahead (default: past the sniper fee's decay, which starts at the last won
 * round's block at the latest), so the next swap pays the pool's own fee (and disables the MEV
 * module). anvil only.
 */
export async function advancePastAuction(
  client: { request: (args: never) => Promise<unknown> },
  seconds: number = DEFAULT_SNIPER_FEES.secondsToDecay + 1,
): Promise<void> {
  const request = client.request as (args: { method: string; params?: unknown[] }) => Promise<unknown>;
  for (let i = 0n; i < LAST_AUCTION_BLOCK_AFTER_LAUNCH; i++) await request({ method: "evm_mine", params: [] });
  await request({ method: "evm_increaseTime", params: [numberToHex(seconds)] });
  await request({ method: "evm_mine", params: [] });
}

/** The launch fees every devnet launch uses: the devnet's hook and module with clanker-sdk's default fees. */
export function devnetLaunchFees(c: { clankerHook: Address; mevModule: Address }): LaunchFees {
  return { hook: c.clankerHook, mevModule: c.mevModule, ...DEFAULT_POOL_FEES, ...DEFAULT_SNIPER_FEES };
}

/** The same with the devnet's dynamic-fee hook and a fee curve (clanker-sdk's `DynamicBasic` by default). */
export function devnetDynamicLaunchFees(c: { clankerDynamicHook: Address; mevModule: Address }, dynamic: DynamicPoolFees = DYNAMIC_BASIC_FEES): LaunchFees {
  return { hook: c.clankerDynamicHook, mevModule: c.mevModule, ...DEFAULT_POOL_FEES, dynamic, ...DEFAULT_SNIPER_FEES };
}

/** Sends `deployToken(config)` from the context's account; returns its `TokenCreated` and receipt. */
export async function launchToken(ctx: DevnetContext, launcher: Address, config: DeploymentConfig): Promise<TokenCreated & { receipt: TransactionReceipt }> {
  const hash = await ctx.write(launcher, clankerFactoryAbi, "deployToken", [config]);
  const receipt = await ctx.publicClient.getTransactionReceipt({ hash });
  return { ...parseTokenCreated(receipt, launcher), receipt };
}
