/**
 * A private devnet for a suite: its own anvil with the whole protocol deployed (so the suite
 * knows the chain's exact state and can kill, pause, rewrite or proxy it), a fresh database,
 * and helpers to trade, move oracle prices and act as the perps keeper.
 *
 * The anvil loads the prepared devnet (devnet/prepared.ts) rather than deploying: the same
 * chain, block for block, in well under a second.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Abi, type Address, type Hex, erc20Abi, getAddress, parseAbi } from "viem";
import { clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { type Config, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY, type Deployments, loadConfig } from "../../common/config.js";
import { inject } from "vitest";
import { type AnvilHandle, startAnvil } from "../../devnet/anvil.js";
import { createDevnetContext, type DevnetContext } from "../../devnet/context.js";
import { writeDeployments } from "../../devnet/deploy.js";
import { deploymentsAt, preparedDevnet } from "../../devnet/prepared.js";
import { type MarketPool, buyToken, marketContracts, sellToken } from "../../devnet/market.js";
import { advancePastAuction, devnetPrivateKey } from "../../devnet/protocol.js";
import { createDatabase, testEnv } from "../helpers/env.js";
import { freePort } from "../helpers/ports.js";
import { rpc } from "./helpers.js";

export const feedAbi = parseAbi(["function setAnswer(int256 answer)", "function latestAnswer() view returns (int256)"]);
export const keeperAbi = parseAbi([
  "function executeMarketOrders(uint256[] orderIds)",
  "function executeLimitOrder(uint8 _orderType, address _trader, uint256 _pairIndex, uint256 _index)",
]);

export type PrivateDevnet = {
  anvil: AnvilHandle;
  rpcUrl: string;
  deployments: Deployments;
  deploymentsFile: string;
  databaseUrl: string;
  c: Record<string, Address>;
  feeds: Record<string, Address>;
  protocolToken: Address;
  /** anvil account i as a devnet context (0 is the operator: never send from it while an engine runs). */
  as: (i: number) => DevnetContext;
  /** The engine's environment on this devnet: its own database, this anvil, the devnet's deployments. */
  env: (extra?: Record<string, string>) => Record<string, string>;
  /** Only where the chain is (for a service given its own database, e.g. `startTestPonder`). */
  chainEnv: Record<string, string>;
  /** One JSON-RPC call to this anvil. */
  rpc: <T = unknown>(method: string, params?: unknown[]) => Promise<T>;
  config: (extra?: Record<string, string>) => Config;
  pool: (token: Address) => Promise<MarketPool>;
  buy: (trader: number, token: Address, usdcIn: bigint) => Promise<Hex>;
  sell: (trader: number, token: Address, amount: bigint) => Promise<Hex>;
  setPrice: (feed: string, answer: bigint) => Promise<void>;
  price: (feed: string) => Promise<bigint>;
  execute: (orderIds: bigint[]) => Promise<void>;
  balance: (token: Address, owner: Address) => Promise<bigint>;
  /** Mines past every launch's sniper auction and its decaying fee (`advancePastAuction`). */
  passAuction: () => Promise<void>;
  stop: () => Promise<void>;
};

export const KEEPER = 9;

/** `chainId`: the chain id anvil reports (default the devnet's; e.g. 8453 to run as Base would). */
export async function startPrivateDevnet(options: { port?: number; chainId?: number } = {}): Promise<PrivateDevnet> {
  const chainId = options.chainId ?? DEVNET_CHAIN_ID;
  const dir = mkdtempSync(join(tmpdir(), "engine-devnet-"));
  const prepared = chainId === DEVNET_CHAIN_ID ? { stateFile: inject("preparedStateFile"), deployments: undefined } : await preparedDevnet({ chainId });
  const anvil = await startAnvil({ port: options.port ?? (await freePort()), chainId, loadStateFile: prepared.stateFile });
  const operator = createDevnetContext(anvil.rpcUrl, chainId, DEVNET_OPERATOR_KEY);
  const deployments = deploymentsAt(prepared.deployments ?? (JSON.parse(readFileSync(testEnv().deploymentsFile, "utf8")) as Deployments), anvil.rpcUrl);
  const deploymentsFile = join(dir, "deployments.json");
  writeDeployments(deploymentsFile, deployments);
  const databaseUrl = await createDatabase("engine");
  const { priceFeeds, ...rest } = deployments.contracts;
  const c = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, getAddress(v as string)])) as Record<string, Address>;
  const feeds = priceFeeds as Record<string, Address>;
  const contexts = new Map<number, DevnetContext>();
  const as = (i: number) => {
    if (!contexts.has(i)) contexts.set(i, createDevnetContext(anvil.rpcUrl, chainId, i === 0 ? DEVNET_OPERATOR_KEY : devnetPrivateKey(i)));
    return contexts.get(i)!;
  };
  const mc = marketContracts(deployments);
  const pools = new Map<Address, MarketPool>();
  const pool = async (token: Address) => {
    if (!pools.has(token)) {
      const info = await as(1).read<{ poolKey: MarketPool["poolKey"] }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
      const key = {
        ...info.poolKey,
        currency0: getAddress(info.poolKey.currency0),
        currency1: getAddress(info.poolKey.currency1),
        hooks: getAddress(info.poolKey.hooks),
      };
      pools.set(token, { token, pairedToken: key.currency0 === token ? key.currency1 : key.currency0, poolKey: key });
    }
    return pools.get(token)!;
  };
  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: databaseUrl,
    RPC_URL: anvil.rpcUrl,
    CHAIN_ID: String(chainId),
    DEPLOYMENTS_FILE: deploymentsFile,
    // Off the devnet the key and finality are not implied: the operator is anvil's account 0.
    ...(chainId === DEVNET_CHAIN_ID ? {} : { PROTOCOL_PRIVATE_KEY: DEVNET_OPERATOR_KEY, CONFIRMATIONS: "0" }),
    LOG_LEVEL: "warn",
    ...extra,
  });
  const chainEnv = { RPC_URL: anvil.rpcUrl, CHAIN_ID: String(chainId), DEPLOYMENTS_FILE: deploymentsFile };
  return {
    anvil,
    rpcUrl: anvil.rpcUrl,
    chainEnv,
    rpc: (method, params = []) => rpc(anvil.rpcUrl, method, params),
    deployments,
    deploymentsFile,
    databaseUrl,
    c,
    feeds,
    protocolToken: getAddress(deployments.protocolToken!),
    as,
    env,
    config: (extra = {}) => loadConfig(env(extra)),
    pool,
    buy: async (trader, token, usdcIn) => buyToken(as(trader), mc, await pool(token), usdcIn),
    sell: async (trader, token, amount) => sellToken(as(trader), mc, await pool(token), amount),
    setPrice: async (feed, answer) => {
      await as(KEEPER).write(feeds[feed]!, feedAbi, "setAnswer", [answer]);
    },
    price: (feed) => as(KEEPER).read<bigint>(feeds[feed]!, feedAbi, "latestAnswer"),
    execute: async (orderIds) => {
      await as(KEEPER).write(c.perpsTrading!, keeperAbi, "executeMarketOrders", [orderIds]);
    },
    balance: (token, owner) => as(1).read<bigint>(token, erc20Abi, "balanceOf", [owner]),
    passAuction: () => advancePastAuction(operator.publicClient as never),
    stop: async () => {
      await anvil.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { rpc };
