/**
 * History generator: a devnet chain with a chosen number of indexed events (launches,
 * enrolments, swaps, fee collections and claims, perps trades, burns), reproducible from a
 * seed and stored as an anvil state file, so benchmarks load it instead of regenerating it.
 *
 * The cache (`bench/history/history-<events>-<seed>/`) holds the chain as anvil's
 * `anvil_dumpState` returns it, gzip of its JSON state (`state.json.gz`, about a third of the
 * JSON's size), then `deployments.json`, then `meta.json` last: meta records the state's size
 * and sha256, so a cache is used only when it is complete and intact; anything else is
 * regenerated, with a line saying why. Every file is written to a temporary name and renamed.
 *
 * Transactions are sent in batches with explicit nonces and gas, then mined together
 * (automine off), which is what makes 100k events take minutes rather than hours. From 500k
 * events on, traders act through a BenchBatcher contract (contracts/devnet), 20 swaps, burns
 * and collections per transaction, saved by anvil's dump at exit (see `actionsPerTransaction`
 * for why a million events do not fit yet).
 *
 *   npx tsx bench/history.ts --events 10000 [--seed 7]
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Abi,
  type AbiEvent,
  type Address,
  type Hex,
  encodeFunctionData,
  erc20Abi,
  keccak256,
  maxUint48,
  maxUint160,
  maxUint256,
  parseAbi,
  toHex,
} from "viem";
import { clankerFactoryAbi, clankerFeeLockerAbi, clankerLpLockerAbi } from "../common/abis/clanker.js";
import { PERPS_PRECISION, perpsTradingAbi } from "../common/abis/perps.js";
import { registryAbi } from "../common/abis/registry.js";
import { poolManagerAbi } from "../common/abis/uniswap.js";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY, type Deployments } from "../common/config.js";
import { DEAD_ADDRESS } from "../common/constants.js";
import type { PoolKey } from "../common/uniswap.js";
import { startAnvil } from "../devnet/anvil.js";
import { ROOT, compileProject } from "../devnet/compile.js";
import { type DevnetContext, createDevnetContext } from "../devnet/context.js";
import { deployDevnet } from "../devnet/deploy.js";
import { mulberry32 } from "../devnet/market.js";
import { devnetPrivateKey } from "../devnet/protocol.js";
import { checkStateFile, sha256File, writeFileAtomic } from "../devnet/state.js";
import { permit2Abi } from "../devnet/uniswap.js";
import { buildDeploymentConfig, launchSplitRewards, parseTokenCreated } from "../common/deploy-config.js";
import { UNIVERSAL_ROUTER_ABI, routerPlan, v4ExactInSingle } from "../common/universal-router.js";

export const HISTORY_DIR = join(ROOT, "bench", "history");
const TRADERS = [1, 2, 3, 4, 5, 6, 7, 8];
const KEEPER = 9;
const GAS = 900_000n;
const MAX_FEE = 50_000_000_000n;
const DEADLINE = 2n ** 40n;
const USDC = (n: bigint) => n * 1_000_000n;
const keeperAbi = parseAbi(["function executeMarketOrders(uint256[] orderIds)"]);
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);
const LOG_CHUNK_BLOCKS = 4n;
const batcherAbi = parseAbi(["function run(address[] targets, bytes[] data)"]);
/** Gas per action of a batched trader transaction (a v4 swap through the router is ~150k). */
const GAS_PER_ACTION = 300_000n;

/**
 * Trader actions per transaction: 1 (each swap, burn or collection its own transaction) below
 * 500k events; larger histories send 20 through each trader's BenchBatcher per transaction
 * (~2,000 events/s generated instead of ~400), saved by anvil's dump at exit.
 *
 * Not yet usable at 1M: anvil keeps every mined transaction's call traces in its state, so the
 * plain state of a 100k-event batched history is already 1.5 GB (a million events: ~15 GB
 * plain, ~0.5 GB gzipped) — too large to load back into anvil here. The bench's sizes stop at
 * 100k until a history's state is made smaller (leaner actions than router + Permit2 swaps, or
 * a chain without stored traces).
 */
export function actionsPerTransaction(events: number): number {
  return events >= 500_000 ? 20 : 1;
}

export type History = {
  name: string;
  events: number;
  seed: number;
  /** anvil's state: gzip of its JSON (`state.json.gz`), or plain JSON in caches made before. */
  stateFile: string;
  /** Size and sha256 of `stateFile` as written; a cache whose file differs is regenerated. */
  stateBytes?: number;
  stateSha256?: string;
  deploymentsFile: string;
  deployments: Deployments;
  head: number;
  /** Logs the indexer follows, by source (what "events" counts). */
  eventsBySource: Record<string, number>;
  indexedEvents: number;
  /** Transfer events of launched tokens (what the bare ponder app indexes). */
  tokenTransfers: number;
  generatedInSeconds: number;
};

/** A signer that numbers its own nonces and never waits: batches are mined by `mineAll`. */
class Sender {
  nonce = 0;
  constructor(readonly ctx: DevnetContext) {}
  async init() {
    this.nonce = await this.ctx.publicClient.getTransactionCount({ address: this.ctx.account.address, blockTag: "pending" });
    return this;
  }
  async send(to: Address, data: Hex, value = 0n, gas = GAS): Promise<Hex> {
    const nonce = this.nonce++;
    // A busy anvil can take longer than the client's timeout to accept a transaction: send the
    // same signed nonce again; "already known" / "nonce too low" means the first one arrived.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.sendOnce(to, data, value, gas, nonce);
      } catch (error) {
        const message = String((error as Error).message);
        if (/already known|nonce too low/i.test(message)) return "0x" as Hex;
        if (attempt >= 5 || !/took too long|timed out|fetch failed|ECONNRESET/i.test(message)) throw error;
      }
    }
  }
  private sendOnce(to: Address, data: Hex, value: bigint, gas: bigint, nonce: number): Promise<Hex> {
    return this.ctx.walletClient.sendTransaction({
      account: this.ctx.account,
      chain: this.ctx.walletClient.chain,
      to,
      data,
      value,
      nonce,
      gas,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: 0n,
    });
  }
  call(to: Address, abi: Abi, functionName: string, args: readonly unknown[], value = 0n) {
    return this.send(to, encodeFunctionData({ abi, functionName, args } as never), value);
  }
}

async function rpc<T>(ctx: DevnetContext, method: string, params: unknown[] = []): Promise<T> {
  return (await ctx.publicClient.request({ method: method as never, params: params as never })) as T;
}

/** Mines until the pool is empty. */
async function mineAll(ctx: DevnetContext): Promise<void> {
  for (;;) {
    await rpc(ctx, "evm_mine");
    const status = await rpc<{ pending: Hex }>(ctx, "txpool_status");
    if (BigInt(status.pending) === 0n) return;
  }
}

/** Counts the logs each indexer source follows in [fromBlock, toBlock], in block chunks. */
export async function countIndexedEvents(ctx: DevnetContext, d: Deployments, tokens: Address[], fromBlock: bigint, toBlock: bigint) {
  const c = d.contracts as Record<string, Address>;
  const count = async (address: Address | Address[], event?: AbiEvent, args?: Record<string, unknown>) => {
    let n = 0;
    const from = fromBlock;
    // Generated blocks are huge (hundreds of transactions): a few at a time keeps each answer small.
    for (let start = from; start <= toBlock; start += LOG_CHUNK_BLOCKS) {
      const end = start + LOG_CHUNK_BLOCKS - 1n > toBlock ? toBlock : start + LOG_CHUNK_BLOCKS - 1n;
      const logs = await ctx.publicClient.getLogs({ address, event, args, fromBlock: start, toBlock: end } as never);
      n += logs.length;
    }
    return n;
  };
  const transferEvent = erc20Abi.find((i): i is Extract<typeof i, { type: "event" }> => i.type === "event" && i.name === "Transfer")!;
  const bySource: Record<string, number> = {
    launcher: await count(c.launcher!),
    lpLocker: await count(c.lpLocker!),
    feeLocker: await count(c.feeLocker!),
    registry: await count(c.registry!),
    poolManager:
      (await count(c.v4PoolManager!, poolManagerAbi.find((i) => i.name === "Swap"))) +
      (await count(c.v4PoolManager!, poolManagerAbi.find((i) => i.name === "Initialize"))),
    v3Pools: await count([c.v3WethUsdcPool!, c.secondaryAssetPool!].filter(Boolean), undefined),
    perps: await count(c.perpsTrading!),
    burns: await count(tokens, transferEvent, { to: DEAD_ADDRESS }),
  };
  const tokenTransfers = await count(tokens, transferEvent);
  return { bySource, total: Object.values(bySource).reduce((a, b) => a + b, 0), tokenTransfers };
}

/** Stops anvil, which dumps the chain to `plain`; gzips that (streamed) into `file`, atomically. */
async function gzipExitDump(anvil: { stop: () => Promise<void> }, plain: string, file: string): Promise<{ bytes: number; sha256: string }> {
  await anvil.stop();
  if (!existsSync(plain)) throw new Error("anvil did not leave a complete state dump at exit");
  const tmp = `${file}.write.tmp`;
  const hash = createHash("sha256");
  let bytes = 0;
  const count = async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of chunks) {
      hash.update(chunk);
      bytes += chunk.length;
      yield chunk;
    }
  };
  await pipeline(createReadStream(plain), createGzip(), count, createWriteStream(tmp));
  const handle = await open(tmp, "r+");
  await handle.sync();
  await handle.close();
  await rename(tmp, file);
  rmSync(plain, { force: true });
  return { bytes, sha256: hash.digest("hex") };
}

/** One transaction of `s` in which its batcher makes every call of `calls` in order. */
function runBatch(s: Sender, batcher: Address, calls: [Address, Hex][]): Promise<Hex> {
  const data = encodeFunctionData({ abi: batcherAbi, functionName: "run", args: [calls.map(([to]) => to), calls.map(([, d]) => d)] });
  return s.send(batcher, data, 0n, GAS_PER_ACTION * BigInt(calls.length) + 100_000n);
}

export function historyName(events: number, seed: number): string {
  return `history-${events}-${seed}`;
}

/** The stored history of `events` events for `seed`, if complete and intact; otherwise why not. */
export async function loadHistory(events: number, seed: number): Promise<{ history?: History; problem?: string }> {
  const dir = join(HISTORY_DIR, historyName(events, seed));
  const metaFile = join(dir, "meta.json");
  if (!existsSync(metaFile)) return existsSync(dir) ? { problem: "its generation never finished (no meta.json)" } : {};
  let meta: History;
  try {
    meta = JSON.parse(readFileSync(metaFile, "utf8")) as History;
  } catch (error) {
    return { problem: `meta.json does not parse (${(error as Error).message})` };
  }
  // Paths are the cache's own, wherever the checkout lives now.
  const stateFile = join(dir, meta.stateSha256 ? "state.json.gz" : "state.json");
  const deploymentsFile = join(dir, "deployments.json");
  if (!existsSync(stateFile)) return { problem: `${stateFile} is missing` };
  if (meta.stateSha256) {
    const size = statSync(stateFile).size;
    if (size !== meta.stateBytes) return { problem: `state.json.gz has ${size} bytes, meta.json says ${meta.stateBytes}` };
    if ((await sha256File(stateFile)) !== meta.stateSha256) return { problem: "state.json.gz does not match its sha256 in meta.json" };
  } else {
    // A cache from before checksums: usable only if anvil's dump is complete.
    const problem = checkStateFile(stateFile);
    if (problem) return { problem: `state.json: ${problem}` };
  }
  try {
    JSON.parse(readFileSync(deploymentsFile, "utf8"));
  } catch (error) {
    return { problem: `deployments.json is unreadable (${(error as Error).message})` };
  }
  return { history: { ...meta, stateFile, deploymentsFile } };
}

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);

/**
 * Returns the stored history of `events` events for `seed`, generating it first if needed (or
 * if the stored one is incomplete or damaged). `progress` reports generation as it goes.
 */
export async function ensureHistory(events: number, seed: number, port: number, progress: (msg: string) => void = () => {}): Promise<History> {
  const { history: existing, problem } = await loadHistory(events, seed);
  if (existing) return existing;
  const dir = join(HISTORY_DIR, historyName(events, seed));
  if (problem) progress(`cached ${historyName(events, seed)} is unusable (${problem}): regenerating it`);
  rmSync(dir, { recursive: true, force: true });
  const started = Date.now();
  mkdirSync(dir, { recursive: true });
  const stateFile = join(dir, "state.json.gz");
  // No periodic dumps while generating (a dump of a large state stalls anvil's RPC). Large
  // histories are saved by anvil's own dump at exit: their `anvil_dumpState` answer (hex of
  // the gzip) would pass Node's maximum string length (~512M characters; 1M events is ~0.7 GB).
  const exitDump = actionsPerTransaction(events) > 1;
  const plainState = join(dir, "state.json");
  const anvil = await startAnvil({ port, ...(exitDump ? { stateFile: plainState, saveIntervalSeconds: 0, onProgress: progress } : {}) });
  try {
    const operatorCtx = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
    progress("deploying the devnet");
    const deployments = await deployDevnet(operatorCtx);
    const c = deployments.contracts as Record<string, Address>;
    const random = mulberry32(seed);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const traders = await Promise.all(TRADERS.map((i) => new Sender(createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(i))).init()));
    const keeper = await new Sender(createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(KEEPER))).init();
    const operator = await new Sender(operatorCtx).init();
    const batch = actionsPerTransaction(events);
    // Large histories: each trader acts through its own batcher (deployed while automine is on).
    const batchers = new Map<Sender, Address>();
    if (batch > 1) {
      const artifact = compileProject().BenchBatcher!;
      for (const t of traders) batchers.set(t, await t.ctx.deploy(artifact));
      for (const t of traders) await t.init();
    }
    await rpc(operatorCtx, "evm_setAutomine", [false]);

    // Fund the operator for desks and buybacks; launch and enrol more tokens (one per 2,000 events).
    await operator.call(c.usdc!, mintAbi, "mint", [operatorCtx.account.address, USDC(100_000_000n)]);
    const launches = Math.max(2, Math.floor(events / 2_000));
    for (let i = 0; i < launches; i++) {
      const creator = traders[i % traders.length]!;
      const config = buildDeploymentConfig({
        tokenAdmin: creator.ctx.account.address,
        name: `Bench ${i}`,
        symbol: `B${i}`,
        salt: keccak256(toHex(`bench-${seed}-${i}`)),
        chainId: DEVNET_CHAIN_ID,
        pairedToken: c.usdc!,
        locker: c.lpLocker!,
        rewards: launchSplitRewards({ operator: operatorCtx.account.address, creator: creator.ctx.account.address }),
        startingMarketCap: USDC(10_000n),
      });
      await creator.send(c.launcher!, encodeFunctionData({ abi: clankerFactoryAbi, functionName: "deployToken", args: [config] }));
    }
    await mineAll(operatorCtx);
    const created = await operatorCtx.publicClient.getLogs({ address: c.launcher!, event: clankerFactoryAbi.find((i) => i.type === "event" && i.name === "TokenCreated") as never, fromBlock: 0n });
    const tokens = created.map((l) => parseTokenCreated({ logs: [l] }).token);
    for (const token of tokens.slice(3)) {
      const creator = traders[tokens.indexOf(token) % traders.length]!;
      await operator.call(c.registry!, registryAbi, "enroll", [token, creator.ctx.account.address, 2850, 5700, 950, `0x${"00".repeat(32)}`]);
    }
    const keys = new Map<Address, PoolKey>();
    for (const token of tokens) {
      const info = await operatorCtx.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
      keys.set(token, info.poolKey);
    }
    // Approvals: USDC and every token to Permit2, Permit2 to the router; USDC to the perps storage.
    for (const s of [...traders, operator]) {
      for (const token of [c.usdc!, ...tokens]) {
        await s.call(token, erc20Abi, "approve", [c.permit2!, maxUint256]);
        await s.call(c.permit2!, permit2Abi, "approve", [token, c.universalRouter!, maxUint160, maxUint48]);
      }
    }
    await operator.call(c.usdc!, erc20Abi, "approve", [c.perpsStorage!, maxUint256]);
    for (const [s, batcher] of batchers) {
      await operator.call(c.usdc!, mintAbi, "mint", [batcher, USDC(1_000_000_000n)]);
      const calls: [Address, Hex][] = [];
      for (const token of [c.usdc!, ...tokens]) {
        calls.push([token, encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [c.permit2!, maxUint256] })]);
        calls.push([c.permit2!, encodeFunctionData({ abi: permit2Abi, functionName: "approve", args: [token, c.universalRouter!, maxUint160, maxUint48] as never })]);
      }
      await runBatch(s, batcher, calls);
    }
    await mineAll(operatorCtx);

    const usdcTokens = tokens.filter((t) => keys.get(t)!.currency0 === c.usdc || keys.get(t)!.currency1 === c.usdc);
    const swapData = (token: Address, tokenIn: Address, amountIn: bigint) => {
      const key = keys.get(token)!;
      const { commands, inputs } = routerPlan([v4ExactInSingle({ poolKey: key, zeroForOne: key.currency0 === tokenIn, amountIn, amountOutMin: 0n, payerIsUser: true })]);
      return encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI as Abi, functionName: "execute", args: [commands, inputs, DEADLINE] });
    };
    const swap = (s: Sender, token: Address, tokenIn: Address, amountIn: bigint) => s.send(c.universalRouter!, swapData(token, tokenIn, amountIn));
    /** One trader action (the same mix either way), as a call its batcher makes or a transaction. */
    const traderAction = (): [Address, Hex] => {
      const token = pick(usdcTokens);
      const r = random();
      if (r < 0.45) return [c.universalRouter!, swapData(token, c.usdc!, USDC(BigInt(20 + Math.floor(random() * 500))))];
      if (r < 0.7) return [c.universalRouter!, swapData(token, token, 10n ** 24n * BigInt(1 + Math.floor(random() * 50)))];
      if (r < 0.85) return [token, encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [DEAD_ADDRESS, 10n ** 22n * BigInt(1 + Math.floor(random() * 100))] })];
      return [c.lpLocker!, encodeFunctionData({ abi: clankerLpLockerAbi as Abi, functionName: "collectRewards", args: [token] })];
    };

    // Rounds of mixed activity until the indexed-event target is reached (checked every few rounds).
    let round = 0;
    let counted = 0;
    let countedTo = BigInt(deployments.startBlock ?? 0) - 1n;
    const tally = { bySource: {} as Record<string, number>, tokenTransfers: 0 };
    /** Counts the blocks mined since the last count and adds them to the tally. */
    const countNew = async () => {
      const head = await operatorCtx.publicClient.getBlockNumber({ cacheTime: 0 });
      const fresh = await countIndexedEvents(operatorCtx, deployments, tokens, countedTo + 1n, head);
      countedTo = head;
      for (const [source, n] of Object.entries(fresh.bySource)) tally.bySource[source] = (tally.bySource[source] ?? 0) + n;
      tally.tokenTransfers += fresh.tokenTransfers;
      return fresh;
    };
    const orders: bigint[] = [];
    // Small histories count every round so they land near their target; large ones batch more.
    const perRound = Math.min(150, Math.max(10, Math.floor(events / 20)));
    const countEvery = events < 20_000 || batch > 1 ? 1 : 5;
    while (counted < events) {
      for (let k = 0; k < perRound; k++) {
        const s = pick(traders);
        if (batch === 1) {
          const [to, data] = traderAction();
          await s.send(to, data);
        } else {
          await runBatch(s, batchers.get(s)!, Array.from({ length: batch }, traderAction));
        }
      }
      // The operator: buy back and burn, claim, and run desks the keeper executes.
      const token = pick(usdcTokens);
      await swap(operator, token, c.usdc!, USDC(10n));
      await operator.call(token, erc20Abi, "transfer", [DEAD_ADDRESS, 10n ** 22n]);
      if (round % 5 === 0) await operator.call(c.feeLocker!, clankerFeeLockerAbi as Abi, "claim", [operatorCtx.account.address, c.usdc!]);
      if (round % 3 === 0) {
        const trade = { trader: operatorCtx.account.address, pairIndex: BigInt(round % 2), index: 0n, initialPosToken: 0n, positionSizeUSDC: USDC(100n), openPrice: 0n, buy: random() < 0.5, leverage: 5n * PERPS_PRECISION, tp: 0n, sl: 0n, timestamp: 0n };
        await operator.call(c.perpsTrading!, perpsTradingAbi as Abi, "openTrade", [trade, 3, 10n ** 12n], 350_000_000_000_000n);
      }
      await mineAll(operatorCtx);
      if (round % 3 === 0) {
        const head = await operatorCtx.publicClient.getBlockNumber({ cacheTime: 0 });
        const pending = await operatorCtx.publicClient.getLogs({ address: c.perpsTrading!, event: perpsTradingAbi.find((i) => i.type === "event" && i.name === "MarketOrderInitiated") as never, fromBlock: head - 2n, toBlock: head });
        for (const log of pending) orders.push((log as unknown as { args: { orderId: bigint } }).args.orderId);
        if (orders.length) await keeper.call(c.perpsTrading!, keeperAbi, "executeMarketOrders", [orders.splice(0)]);
      }
      round++;
      if (round % countEvery === 0) {
        await mineAll(operatorCtx);
        counted += (await countNew()).total;
        progress(`${counted} / ${events} events`);
      }
    }
    await mineAll(operatorCtx);
    // No bought token stays in the operator wallet: burn what the rounds' small burns left.
    for (const token of tokens) {
      const left = await operatorCtx.read<bigint>(token, erc20Abi, "balanceOf", [operatorCtx.account.address]);
      if (left > 0n) await operator.call(token, erc20Abi, "transfer", [DEAD_ADDRESS, left]);
    }
    await mineAll(operatorCtx);
    await rpc(operatorCtx, "evm_setAutomine", [true]);
    const head = await operatorCtx.publicClient.getBlockNumber({ cacheTime: 0 });
    await countNew();
    progress("saving the chain");
    const saved = performance.now();
    const state = exitDump ? await gzipExitDump(anvil, plainState, stateFile) : await writeFileAtomic(stateFile, await anvil.dumpState());
    progress(`saved ${(state.bytes / 1e6).toFixed(1)} MB of gzipped state in ${((performance.now() - saved) / 1000).toFixed(1)} s`);
    const deploymentsFile = join(dir, "deployments.json");
    await writeFileAtomic(deploymentsFile, json(deployments));
    const history: History = {
      name: historyName(events, seed),
      events,
      seed,
      stateFile,
      stateBytes: state.bytes,
      stateSha256: state.sha256,
      deploymentsFile,
      deployments,
      head: Number(head),
      eventsBySource: tally.bySource,
      indexedEvents: Object.values(tally.bySource).reduce((a, b) => a + b, 0),
      tokenTransfers: tally.tokenTransfers,
      generatedInSeconds: Math.round((Date.now() - started) / 1000),
    };
    await anvil.stop();
    // Written last: its presence says the state and deployments before it are complete.
    await writeFileAtomic(join(dir, "meta.json"), json(history));
    return history;
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (name: string, fallback: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1]! : fallback;
  };
  const events = Number(flag("events", "1000"));
  const seed = Number(flag("seed", "7"));
  const { freePort } = await import("../devnet/ports.js");
  const h = await ensureHistory(events, seed, await freePort(), (m) => console.log(m));
  console.log(`${h.name}: ${h.indexedEvents} indexed events, ${h.tokenTransfers} token transfers, head ${h.head}, generated in ${h.generatedInSeconds}s`);
}
