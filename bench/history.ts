/**
 * History generator: a devnet chain with a chosen number of indexed events (launches,
 * enrolments, swaps, fee collections and claims, perps trades, burns), reproducible from a
 * seed and stored as an anvil state file, so benchmarks load it instead of regenerating it.
 *
 * The cache (`bench/history/history-<events>-<seed>/`) holds the chain as anvil's JSON state
 * without the call traces anvil records for every transaction (`stripTraces`: they were ~85% of
 * it), gzipped (`state.json.gz`, ~1/13 of that JSON), then `deployments.json`, then
 * `meta.json` last: meta records the state's size and sha256, so a cache is used only when it
 * is complete and intact; anything else is regenerated, with a line saying why. Every file is
 * written to a temporary name, fsynced and renamed. The state is streamed through every step
 * (anvil's dump, stripping, gzip, hash), never held whole in memory: a million events is
 * gigabytes of JSON as anvil dumps it.
 *
 * Transactions are sent in batches with explicit nonces and gas, then mined together
 * (automine off), which is what makes 100k events take minutes rather than hours. From 500k
 * events on, traders act through a BenchBatcher contract (contracts/devnet), `BATCH_ACTIONS`
 * swaps, burns and collections per transaction with swaps straight against the PoolManager,
 * saved by anvil's dump at exit (see `actionsPerTransaction`).
 *
 * Twin histories (`--foreign <ratio>`, cached as `history-<events>-<seed>-foreign<ratio>`): the
 * same activity of ours on a fixed clock and in blocks large enough that each batch is one block,
 * with strangers' launches and trading `ratio` times our events beside it (bench/foreign.ts;
 * ratio 0 is the clean twin). The noise benchmark (bench/noise.ts) indexes both.
 *
 *   npx tsx bench/history.ts --events 10000 [--seed 7] [--batch 40] [--foreign 10]
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
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
import { type AnvilHandle, startAnvil } from "../devnet/anvil.js";
import { ROOT, compileProject } from "../devnet/compile.js";
import { type DevnetContext, createDevnetContext } from "../devnet/context.js";
import { deployDevnet } from "../devnet/deploy.js";
import { mulberry32 } from "../devnet/market.js";
import { advancePastAuction, devnetLaunchFees, devnetPrivateKey } from "../devnet/protocol.js";
import { checkStateFile, sha256File, writeFileAtomic } from "../devnet/state.js";
import { residentBytes } from "../devnet/memory-bound.js";
import { stripTraces } from "../devnet/traces.js";
import { permit2Abi } from "../devnet/uniswap.js";
import { DEFAULT_SNIPER_FEES, buildDeploymentConfig, launchSplitRewards, parseTokenCreated } from "../common/deploy-config.js";
import { UNIVERSAL_ROUTER_ABI, routerPlan, v4ExactInSingle } from "../common/universal-router.js";
import { ForeignActivity } from "./foreign.js";

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
const batcherAbi = parseAbi([
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "function addPools(PoolKey[] keys)",
  "function act(uint256[] swaps, address[] targets, bytes[] data)",
]);
/**
 * Gas per action of a batched trader transaction: measured ~26k on average (a direct swap,
 * its share of the settlement, burns, a collection now and then), at most ~42k per action
 * in a transaction; anvil fills a block by the gas transactions declare, so this sets how many
 * fit in one (60M).
 */
const GAS_PER_ACTION = 60_000n;

/**
 * Trader actions per transaction: 1 (each swap, burn or collection its own transaction, swaps
 * through the Universal Router and Permit2) below 500k events; larger histories send
 * `BATCH_ACTIONS` through each trader's BenchBatcher per transaction, its swaps straight
 * against the PoolManager in one unlock (see contracts/devnet/BenchBatcher.sol), and are saved
 * by anvil's dump at exit.
 *
 * Why lean swaps: anvil keeps every mined transaction's call trace in memory until it dumps
 * the chain (`stripTraces` drops them from the saved state, but not from the running anvil).
 * A router swap is 14 calls and ~17 KB of trace for its one `Swap` event, a collection 38
 * calls and ~40 KB; with router swaps a million events meant ~15 GB of traces, more than this
 * machine's anvil could hold and dump. A batched direct swap is one call plus its share of the
 * settlement. Collections stay (they are the lockers' events) but are rarer in batched
 * histories (`traderAction`).
 */
export function actionsPerTransaction(events: number, override?: number): number {
  return override ?? (events >= 500_000 ? BATCH_ACTIONS : 1);
}
const BATCH_ACTIONS = 40;

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
  /** Size of the JSON state `stateFile` inflates to (caches made before it: absent). */
  stateJsonBytes?: number;
  /** How it was made: trader actions per transaction, anvil's dump with traces, anvil's peak memory, save time. */
  generation?: { actionsPerTransaction: number; dumpedJsonBytes: number; anvilPeakBytes: number; savedInSeconds: number };
  /**
   * A twin history (`--foreign <ratio>`, ratio 0 for the clean twin): generated on the twin
   * clock and block size, with strangers' activity beside ours (bench/foreign.ts). The fields
   * above count ours alone (the same as the clean twin's); these count the strangers'.
   */
  foreign?: { ratio: number; events: number; bySource: Record<string, number>; tokenTransfers: number; launches: number; transactions: number };
};

/**
 * Twin histories (`--foreign`): block gas limit, so that each batch of ours is one block with or
 * without strangers beside it (anvil fills a block by declared gas: a 10k-event round of ours
 * with its strangers declares ~2.2 billion, and 2 billion split them).
 */
export const TWIN_GAS_LIMIT = 100_000_000_000;
/** Twin histories' clock: the first block's time, then this many seconds a block (the same blocks get the same times in both twins). */
export const TWIN_GENESIS_TIME = 2_000_000_000;
export const TWIN_BLOCK_SECONDS = 2;

/** A signer that numbers its own nonces and never waits: batches are mined by `mineAll`. */
class Sender {
  nonce = 0;
  /** Transactions sent and not yet seen mined, by nonce (for `repair`). */
  private unmined = new Map<number, { to: Address | undefined; data: Hex; value: bigint; gas: bigint; resent: number }>();
  constructor(readonly ctx: DevnetContext) {}
  async init() {
    this.nonce = await this.ctx.publicClient.getTransactionCount({ address: this.ctx.account.address, blockTag: "pending" });
    return this;
  }
  /** `to` undefined: a contract creation. */
  async send(to: Address | undefined, data: Hex, value = 0n, gas = GAS): Promise<Hex> {
    const nonce = this.nonce++;
    this.unmined.set(nonce, { to, data, value, gas, resent: 0 });
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
  private sendOnce(to: Address | undefined, data: Hex, value: bigint, gas: bigint, nonce: number): Promise<Hex> {
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
  /**
   * After mining: if the chain's nonce of this sender is behind its own while the pool has
   * nothing pending, anvil dropped a transaction (seen in the million-event history: one
   * transaction per trader vanished from the pool, and every later one waited behind the gap
   * forever). Sends the missing one again; returns a line saying so, or undefined.
   */
  async repair(): Promise<string | undefined> {
    const onchain = await patient(() => this.ctx.publicClient.getTransactionCount({ address: this.ctx.account.address, blockTag: "latest" }));
    for (const n of this.unmined.keys()) if (n < onchain) this.unmined.delete(n);
    if (onchain >= this.nonce) return undefined;
    const tx = this.unmined.get(onchain);
    if (!tx) throw new Error(`${this.ctx.account.address}: nonce ${onchain} is missing from the chain and was never sent here`);
    if (++tx.resent > 3) throw new Error(`${this.ctx.account.address}: anvil dropped the transaction with nonce ${onchain} three times`);
    await this.sendOnce(tx.to, tx.data, tx.value, tx.gas, onchain).catch((error: Error) => {
      if (!/already known/i.test(error.message)) throw error;
    });
    return `anvil dropped ${this.ctx.account.address}'s transaction with nonce ${onchain} (${tx.data.slice(0, 10)}, ${this.nonce - onchain - 1} waiting behind it): sent it again`;
  }
  call(to: Address, abi: Abi, functionName: string, args: readonly unknown[], value = 0n) {
    return this.send(to, encodeFunctionData({ abi, functionName, args } as never), value);
  }
}

/**
 * Runs a read again when anvil was too slow to answer within the client's 10 s (a shared
 * machine's anvil, busy mining blocks of thousands of events, sometimes is); other errors
 * and the sixth timeout are thrown.
 */
async function patient<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 5 || !/took too long|timed out|fetch failed|ECONNRESET/i.test(String((error as Error).message))) throw error;
    }
  }
}

async function rpc<T>(ctx: DevnetContext, method: string, params: unknown[] = []): Promise<T> {
  return (await patient(() => ctx.publicClient.request({ method: method as never, params: params as never }))) as T;
}

/**
 * Mines one block, waiting as long as anvil takes: a block of hundreds of swaps can take longer
 * than the client's 10 s, and sending `evm_mine` again after a timeout (as `patient` would)
 * mines a second, empty block, which would shift a twin history's later blocks.
 */
async function mineBlock(rpcUrl: string): Promise<void> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] }),
    signal: AbortSignal.timeout(600_000),
  });
  const body = (await res.json()) as { error?: { message: string } };
  if (body.error) throw new Error(`evm_mine: ${body.error.message}`);
}

/** Mines until the pool is empty and no sender's transaction went missing (`Sender.repair`). */
async function mineAll(ctx: DevnetContext, rpcUrl: string, senders: Sender[], progress: (msg: string) => void): Promise<void> {
  for (;;) {
    await mineBlock(rpcUrl);
    const status = await rpc<{ pending: Hex }>(ctx, "txpool_status");
    if (BigInt(status.pending) !== 0n) continue;
    let repaired = false;
    for (const s of senders) {
      const line = await s.repair();
      if (line) {
        progress(line);
        repaired = true;
      }
    }
    if (!repaired) return;
  }
}

/**
 * Counts the logs each indexer source follows in [fromBlock, toBlock], in block chunks. With
 * `foreignTxs` (hashes of strangers' transactions, lowercase), logs of those transactions are
 * counted apart, in `foreign`: the rest is ours.
 */
export async function countIndexedEvents(
  ctx: DevnetContext,
  d: Deployments,
  tokens: Address[],
  fromBlock: bigint,
  toBlock: bigint,
  foreignTxs: Set<string> = new Set(),
) {
  const c = d.contracts as Record<string, Address>;
  const count = async (address: Address | Address[], event?: AbiEvent, args?: Record<string, unknown>): Promise<[ours: number, foreign: number]> => {
    let n = 0;
    let foreign = 0;
    const from = fromBlock;
    // Generated blocks are huge (hundreds of transactions): a few at a time keeps each answer small.
    for (let start = from; start <= toBlock; start += LOG_CHUNK_BLOCKS) {
      const end = start + LOG_CHUNK_BLOCKS - 1n > toBlock ? toBlock : start + LOG_CHUNK_BLOCKS - 1n;
      const logs = await patient(() => ctx.publicClient.getLogs({ address, event, args, fromBlock: start, toBlock: end } as never));
      for (const l of logs as { transactionHash: Hex }[]) {
        if (foreignTxs.has(l.transactionHash.toLowerCase())) foreign++;
        else n++;
      }
    }
    return [n, foreign];
  };
  const sum = (...counts: [number, number][]): [number, number] => counts.reduce((a, b) => [a[0] + b[0], a[1] + b[1]], [0, 0]);
  const transferEvent = erc20Abi.find((i): i is Extract<typeof i, { type: "event" }> => i.type === "event" && i.name === "Transfer")!;
  const both: Record<string, [number, number]> = {
    launcher: await count(c.launcher!),
    lpLocker: await count(c.lpLocker!),
    feeLocker: await count(c.feeLocker!),
    registry: await count(c.registry!),
    poolManager: sum(
      await count(
        c.v4PoolManager!,
        poolManagerAbi.find((i) => i.name === "Swap"),
      ),
      await count(
        c.v4PoolManager!,
        poolManagerAbi.find((i) => i.name === "Initialize"),
      ),
    ),
    v3Pools: await count([c.v3WethUsdcPool!, c.secondaryAssetPool!].filter(Boolean), undefined),
    perps: await count(c.perpsTrading!),
    burns: tokens.length ? await count(tokens, transferEvent, { to: DEAD_ADDRESS }) : [0, 0],
  };
  const transfers = tokens.length ? await count(tokens, transferEvent) : ([0, 0] as [number, number]);
  const bySource = Object.fromEntries(Object.entries(both).map(([k, v]) => [k, v[0]]));
  const foreignBySource = Object.fromEntries(Object.entries(both).map(([k, v]) => [k, v[1]]));
  const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  return {
    bySource,
    total: total(bySource),
    tokenTransfers: transfers[0],
    foreign: { bySource: foreignBySource, total: total(foreignBySource), tokenTransfers: transfers[1] },
  };
}

/**
 * Writes anvil's JSON state from `source` to `file` as gzip, without traces (`stripTraces`),
 * atomically (temporary file, fsync, rename); returns the file's size and sha256 and the
 * state's plain sizes before and after stripping.
 */
async function saveTracelessState(
  source: AsyncIterable<Buffer>,
  file: string,
): Promise<{ bytes: number; sha256: string; plainBytes: number; keptBytes: number }> {
  const tmp = `${file}.write.tmp`;
  const hash = createHash("sha256");
  const removed = { bytes: 0 };
  let plainBytes = 0;
  let keptBytes = 0;
  let bytes = 0;
  const measured = async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of chunks) {
      plainBytes += chunk.length;
      yield chunk;
    }
  };
  const strip = async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of stripTraces(measured(chunks), removed)) {
      keptBytes += chunk.length;
      yield chunk;
    }
  };
  const count = async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of chunks) {
      hash.update(chunk);
      bytes += chunk.length;
      yield chunk;
    }
  };
  try {
    await pipeline(source, strip, createGzip(), count, createWriteStream(tmp));
    const handle = await open(tmp, "r+");
    await handle.sync();
    await handle.close();
    await rename(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  return { bytes, sha256: hash.digest("hex"), plainBytes, keptBytes };
}

/**
 * Stops anvil, which dumps the chain to `plain` (plain JSON, traces included) as it exits;
 * waits for that as long as the dump keeps growing, reporting progress, then saves it without
 * traces into `file` (`saveTracelessState`) and removes `plain`.
 */
async function saveExitDump(anvil: AnvilHandle, plain: string, file: string, progress: (msg: string) => void) {
  const started = performance.now();
  const exited = new Promise<void>((resolve) => {
    if (anvil.process.exitCode !== null || anvil.process.signalCode !== null) resolve();
    else anvil.process.once("exit", () => resolve());
  });
  anvil.process.kill("SIGTERM");
  const exitTmp = `${plain}.exit.tmp`;
  let last = -1;
  let stalledSince = performance.now();
  for (;;) {
    const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
    if (done) break;
    const size = existsSync(exitTmp) ? statSync(exitTmp).size : 0;
    if (size !== last) stalledSince = performance.now();
    last = size;
    // Building the dump takes a while before the first byte; no growth for 5 minutes is a hang.
    if (performance.now() - stalledSince > 300_000) {
      anvil.process.kill("SIGKILL");
      throw new Error("anvil's exit dump stopped growing for 5 minutes");
    }
    progress(`anvil is dumping the chain: ${(size / 1e6).toFixed(0)} MB after ${Math.round((performance.now() - started) / 1000)} s`);
  }
  await anvil.stop(); // moves the complete dump into `plain`
  if (!existsSync(plain)) throw new Error("anvil did not leave a complete state dump at exit");
  progress(
    `anvil dumped ${(statSync(plain).size / 1e6).toFixed(0)} MB of plain JSON in ${Math.round((performance.now() - started) / 1000)} s; saving it without traces`,
  );
  try {
    return await saveTracelessState(createReadStream(plain, { highWaterMark: 4 << 20 }), file);
  } finally {
    rmSync(plain, { force: true });
  }
}

/** A swap as BenchBatcher takes it: pool index, direction and amount in one word. */
const packSwap = (pool: number, zeroForOne: boolean, amountIn: bigint) => (BigInt(pool) << 129n) | (zeroForOne ? 1n << 128n : 0n) | amountIn;

/** One transaction of `s` in which its batcher makes `swaps` (one unlock), then every call of `calls` in order. */
function actBatch(s: Sender, batcher: Address, swaps: bigint[], calls: [Address, Hex][]): Promise<Hex> {
  const data = encodeFunctionData({ abi: batcherAbi, functionName: "act", args: [swaps, calls.map(([to]) => to), calls.map(([, d]) => d)] });
  return s.send(batcher, data, 0n, GAS_PER_ACTION * BigInt(swaps.length + calls.length) + 200_000n);
}

export function historyName(events: number, seed: number, batch?: number, foreign?: number): string {
  return `history-${events}-${seed}${batch === undefined ? "" : `-b${batch}`}${foreign === undefined ? "" : `-foreign${foreign}`}`;
}

/** The stored history of `events` events for `seed`, if complete and intact; otherwise why not. */
export async function loadHistory(events: number, seed: number, batch?: number, foreign?: number): Promise<{ history?: History; problem?: string }> {
  const dir = join(HISTORY_DIR, historyName(events, seed, batch, foreign));
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
export async function ensureHistory(
  events: number,
  seed: number,
  port: number,
  progress: (msg: string) => void = () => {},
  options: { batch?: number; foreign?: number } = {},
): Promise<History> {
  const name = historyName(events, seed, options.batch, options.foreign);
  const { history: existing, problem } = await loadHistory(events, seed, options.batch, options.foreign);
  if (existing) return existing;
  const dir = join(HISTORY_DIR, name);
  if (problem) progress(`cached ${name} is unusable (${problem}): regenerating it`);
  rmSync(dir, { recursive: true, force: true });
  const started = Date.now();
  mkdirSync(dir, { recursive: true });
  const stateFile = join(dir, "state.json.gz");
  // No periodic dumps while generating (a dump of a large state stalls anvil's RPC). Large
  // histories are saved by anvil's own dump at exit: their `anvil_dumpState` answer (hex of
  // the gzip) would pass Node's maximum string length (~512M characters; 1M events is ~0.7 GB).
  const batch = actionsPerTransaction(events, options.batch);
  // Strangers' batched swaps keep ~30 KB of trace each in anvil until the dump: a noisy twin's dump (1k events of ours: 387 MB) is saved from anvil's exit too.
  const exitDump = batch > 1 || (options.foreign ?? 0) > 0;
  const plainState = join(dir, "state.json");
  const twin = options.foreign !== undefined;
  const anvil = await startAnvil({
    port,
    ...(twin ? { gasLimit: TWIN_GAS_LIMIT } : {}),
    ...(exitDump ? { stateFile: plainState, saveIntervalSeconds: 0, onProgress: progress } : {}),
  });
  try {
    const operatorCtx = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
    if (twin) {
      // The twins' clock: the same block numbers get the same times, whenever and however fast they are generated.
      await rpc(operatorCtx, "evm_setNextBlockTimestamp", [TWIN_GENESIS_TIME]);
      await rpc(operatorCtx, "anvil_setBlockTimestampInterval", [TWIN_BLOCK_SECONDS]);
    }
    progress("deploying the devnet");
    const deployments = await deployDevnet(operatorCtx);
    const c = deployments.contracts as Record<string, Address>;
    const random = mulberry32(seed);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const traders = await Promise.all(TRADERS.map((i) => new Sender(createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(i))).init()));
    const keeper = await new Sender(createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(KEEPER))).init();
    const operator = await new Sender(operatorCtx).init();
    // Strangers beside us (twin histories with a ratio): their own accounts, random stream and batchers.
    const ratio = options.foreign ?? 0;
    const foreign = ratio > 0 ? new ForeignActivity(anvil.rpcUrl, deployments.contracts as Record<string, Address>, seed, (ctx) => new Sender(ctx)) : undefined;
    const foreignSenders = (foreign?.senders ?? []) as Sender[];
    const mine = () => mineAll(operatorCtx, anvil.rpcUrl, [...traders, keeper, operator, ...foreignSenders], progress);
    // Large histories: each trader acts through its own batcher (deployed while automine is on).
    const batchers = new Map<Sender, Address>();
    if (batch > 1) {
      const artifact = compileProject().BenchBatcher!;
      for (const t of traders) batchers.set(t, await t.ctx.deploy(artifact, [c.v4PoolManager!]));
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
        fees: devnetLaunchFees({ clankerHook: c.clankerHook!, mevModule: c.mevModule! }),
      });
      // A launch needs ~2.2M gas (the token, its pool and locked position). Histories below the
      // batched sizes keep sending it with GAS, as their caches were made: those launches revert.
      await creator.send(
        c.launcher!,
        encodeFunctionData({ abi: clankerFactoryAbi, functionName: "deployToken", args: [config] }),
        0n,
        batch > 1 ? 4_000_000n : GAS,
      );
    }
    // Strangers' batchers, wrapped WETH and launches, in the block of ours (after them: our positions stay).
    await foreign?.setup(ratio * Math.max(3, launches));
    await mine();
    // Past the launches' no-trade blocks, auction block and sniper fee decay before any trading.
    await advancePastAuction(operatorCtx.publicClient as never);
    if (twin) {
      // The twins' clock ignores evm_increaseTime (it moves TWIN_BLOCK_SECONDS a block): past the sniper fee decay explicitly.
      const last = await operatorCtx.publicClient.getBlock({ blockTag: "latest" });
      await rpc(operatorCtx, "evm_setNextBlockTimestamp", [Number(last.timestamp) + DEFAULT_SNIPER_FEES.secondsToDecay + 1]);
      await rpc(operatorCtx, "evm_mine");
    }
    const created = await operatorCtx.publicClient.getLogs({
      address: c.launcher!,
      event: clankerFactoryAbi.find((i) => i.type === "event" && i.name === "TokenCreated") as never,
      fromBlock: 0n,
    });
    const launched = created.map((l) => parseTokenCreated({ logs: [l] }));
    const strangers = foreign?.accounts ?? new Set<string>();
    const tokens = launched.filter((t) => !strangers.has(t.tokenAdmin.toLowerCase())).map((t) => t.token);
    await foreign?.adopt(launched);
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
    // (Batched traders swap through their batchers: only the operator uses the router then.)
    for (const s of batch > 1 ? [operator] : [...traders, operator]) {
      for (const token of [c.usdc!, ...tokens]) {
        await s.call(token, erc20Abi, "approve", [c.permit2!, maxUint256]);
        await s.call(c.permit2!, permit2Abi, "approve", [token, c.universalRouter!, maxUint160, maxUint48]);
      }
    }
    await operator.call(c.usdc!, erc20Abi, "approve", [c.perpsStorage!, maxUint256]);
    // Batchers pay the PoolManager directly (USDC, no approvals) and name pools by their index in `usdcTokens`.
    const usdcTokens = tokens.filter((t) => keys.get(t)!.currency0 === c.usdc || keys.get(t)!.currency1 === c.usdc);
    for (const [s, batcher] of batchers) {
      await operator.call(c.usdc!, mintAbi, "mint", [batcher, USDC(1_000_000_000n)]);
      for (let i = 0; i < usdcTokens.length; i += 50) {
        const pools = usdcTokens.slice(i, i + 50).map((t) => keys.get(t)!);
        await s.send(batcher, encodeFunctionData({ abi: batcherAbi, functionName: "addPools", args: [pools] }), 0n, 200_000n + 150_000n * BigInt(pools.length));
      }
    }
    await foreign?.addPools();
    await mine();

    const swapData = (token: Address, tokenIn: Address, amountIn: bigint) => {
      const key = keys.get(token)!;
      const { commands, inputs } = routerPlan([
        v4ExactInSingle({ poolKey: key, zeroForOne: key.currency0 === tokenIn, amountIn, amountOutMin: 0n, payerIsUser: true }),
      ]);
      return encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI as Abi, functionName: "execute", args: [commands, inputs, DEADLINE] });
    };
    const swap = (s: Sender, token: Address, tokenIn: Address, amountIn: bigint) => s.send(c.universalRouter!, swapData(token, tokenIn, amountIn));
    /**
     * One trader action: a buy (USDC in), a sell (token in), a burn or a fee collection. Alone, a
     * transaction (swaps through the router); batched, a swap for the batcher's unlock or a call
     * it makes. Batched histories collect fees in 1.5% of actions instead of 15%: a collection's
     * trace is ~40 KB for its ~4.6 locker events (see `actionsPerTransaction`).
     */
    const collectShare = batch > 1 ? 0.015 : 0.15;
    const traderAction = (from: readonly Address[] = usdcTokens): { swap?: { token: Address; tokenIn: Address; amountIn: bigint }; call?: [Address, Hex] } => {
      const token = pick(from);
      const r = random();
      const swapOf = (tokenIn: Address, amountIn: bigint) => ({ swap: { token, tokenIn, amountIn } });
      if (r < 0.45) return swapOf(c.usdc!, USDC(BigInt(20 + Math.floor(random() * 500))));
      if (r < 0.7) return swapOf(token, 10n ** 24n * BigInt(1 + Math.floor(random() * 50)));
      if (r < 1 - collectShare)
        return {
          call: [
            token,
            encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [DEAD_ADDRESS, 10n ** 22n * BigInt(1 + Math.floor(random() * 100))] }),
          ],
        };
      return { call: [c.lpLocker!, encodeFunctionData({ abi: clankerLpLockerAbi as Abi, functionName: "collectRewards", args: [token] })] };
    };

    // Rounds of mixed activity until the indexed-event target is reached (checked every few rounds).
    let round = 0;
    let counted = 0;
    let peakRss = 0;
    let countedTo = BigInt(deployments.startBlock ?? 0) - 1n;
    const tally = { bySource: {} as Record<string, number>, tokenTransfers: 0 };
    const foreignTally = { bySource: {} as Record<string, number>, tokenTransfers: 0, events: 0, transactions: 0 };
    /** Hashes of the strangers' transactions in [from, to] (none without strangers). */
    const foreignTxsIn = async (from: bigint, to: bigint) => {
      const hashes = new Set<string>();
      if (!foreign) return hashes;
      for (let b = from; b <= to; b++) {
        const block = await patient(() => operatorCtx.publicClient.getBlock({ blockNumber: b, includeTransactions: true }));
        for (const tx of block.transactions) if (strangers.has(tx.from.toLowerCase())) hashes.add(tx.hash.toLowerCase());
      }
      foreignTally.transactions += hashes.size;
      return hashes;
    };
    /** Counts the blocks mined since the last count and adds them to the tally (ours; the strangers' apart). */
    const countNew = async () => {
      const head = await patient(() => operatorCtx.publicClient.getBlockNumber({ cacheTime: 0 }));
      const foreignTxs = await foreignTxsIn(countedTo + 1n, head);
      const fresh = await countIndexedEvents(operatorCtx, deployments, [...tokens, ...(foreign?.traded ?? [])], countedTo + 1n, head, foreignTxs);
      countedTo = head;
      for (const [source, n] of Object.entries(fresh.bySource)) tally.bySource[source] = (tally.bySource[source] ?? 0) + n;
      tally.tokenTransfers += fresh.tokenTransfers;
      for (const [source, n] of Object.entries(fresh.foreign.bySource)) foreignTally.bySource[source] = (foreignTally.bySource[source] ?? 0) + n;
      foreignTally.tokenTransfers += fresh.foreign.tokenTransfers;
      foreignTally.events += fresh.foreign.total;
      return fresh;
    };
    /**
     * Foreign events to add to the block being filled: enough to stay `ratio` × 1.1 ahead of
     * ours counted so far plus one more round like the last (the strangers' events are counted
     * after mining, like ours).
     */
    let lastRound = 0;
    const foreignDue = (ahead: number) => Math.ceil(ratio * (counted + ahead) * 1.1 - foreignTally.events);
    const orders: bigint[] = [];
    // Small histories count every round so they land near their target; large ones batch more.
    const perRound = Math.min(150, Math.max(10, Math.floor(events / 20)));
    const countEvery = events < 20_000 || batch > 1 ? 1 : 5;
    while (counted < events) {
      // Batched transactions are signed and sent concurrently (each sender numbers its own nonces).
      const sent: Promise<Hex>[] = [];
      for (let k = 0; k < perRound; k++) {
        const s = pick(traders);
        if (batch === 1) {
          const { swap: sw, call } = traderAction();
          if (sw) await s.send(c.universalRouter!, swapData(sw.token, sw.tokenIn, sw.amountIn));
          else await s.send(call![0], call![1]);
        } else {
          // A few tokens per transaction: each token touched is a balance read and a settlement in the unlock.
          const subset = [pick(usdcTokens), pick(usdcTokens), pick(usdcTokens)];
          const actions = Array.from({ length: batch }, () => traderAction(subset));
          const swaps = actions.flatMap(({ swap: w }) =>
            w ? [packSwap(usdcTokens.indexOf(w.token), keys.get(w.token)!.currency0 === w.tokenIn, w.amountIn)] : [],
          );
          sent.push(
            actBatch(
              s,
              batchers.get(s)!,
              swaps,
              actions.flatMap((a) => (a.call ? [a.call] : [])),
            ),
          );
        }
      }
      await Promise.all(sent);
      // The operator: buy back and burn, claim, and run desks the keeper executes.
      const token = pick(usdcTokens);
      await swap(operator, token, c.usdc!, USDC(10n));
      await operator.call(token, erc20Abi, "transfer", [DEAD_ADDRESS, 10n ** 22n]);
      if (round % 5 === 0) await operator.call(c.feeLocker!, clankerFeeLockerAbi as Abi, "claim", [operatorCtx.account.address, c.usdc!]);
      if (round % 3 === 0) {
        const trade = {
          trader: operatorCtx.account.address,
          pairIndex: BigInt(round % 2),
          index: 0n,
          initialPosToken: 0n,
          positionSizeUSDC: USDC(100n),
          openPrice: 0n,
          buy: random() < 0.5,
          leverage: 5n * PERPS_PRECISION,
          tp: 0n,
          sl: 0n,
          timestamp: 0n,
        };
        await operator.call(c.perpsTrading!, perpsTradingAbi as Abi, "openTrade", [trade, 3, 10n ** 12n], 350_000_000_000_000n);
      }
      if (foreign) {
        // Strangers trade in the block of our round, after ours; now and then one launches.
        await foreign.trade(foreignDue(lastRound || perRound * 1.3));
        if (round % 4 === 1) await foreign.launch();
      }
      await mine();
      if (round % 3 === 0) {
        const head = await patient(() => operatorCtx.publicClient.getBlockNumber({ cacheTime: 0 }));
        const pending = await patient(() =>
          operatorCtx.publicClient.getLogs({
            address: c.perpsTrading!,
            event: perpsTradingAbi.find((i) => i.type === "event" && i.name === "MarketOrderInitiated") as never,
            fromBlock: head - 2n,
            toBlock: head,
          }),
        );
        for (const log of pending) orders.push((log as unknown as { args: { orderId: bigint } }).args.orderId);
        if (orders.length) await keeper.call(c.perpsTrading!, keeperAbi, "executeMarketOrders", [orders.splice(0)]);
      }
      round++;
      if (round % countEvery === 0) {
        await mine();
        lastRound = (await countNew()).total;
        counted += lastRound;
        const seconds = (Date.now() - started) / 1000;
        const rss = residentBytes(anvil.process.pid);
        progress(
          `${counted} / ${events} events, ${Math.round(seconds)} s, ${Math.round(counted / seconds)} events/s${rss ? `, anvil ${(rss / 2 ** 30).toFixed(1)} GiB` : ""}`,
        );
        peakRss = Math.max(peakRss, rss);
      }
    }
    await mine();
    // No bought token stays in the operator wallet: burn what the rounds' small burns left.
    let lastBurns = 0;
    for (const token of tokens) {
      const left = await operatorCtx.read<bigint>(token, erc20Abi, "balanceOf", [operatorCtx.account.address]);
      if (left > 0n) {
        await operator.call(token, erc20Abi, "transfer", [DEAD_ADDRESS, left]);
        lastBurns++;
      }
    }
    // The strangers make up what they are short of, in this last block of ours (its burns counted ahead).
    await foreign?.trade(foreignDue(lastBurns));
    await mine();
    await rpc(operatorCtx, "evm_setAutomine", [true]);
    const head = await operatorCtx.publicClient.getBlockNumber({ cacheTime: 0 });
    await countNew();
    peakRss = Math.max(peakRss, residentBytes(anvil.process.pid));
    progress("saving the chain");
    const saved = performance.now();
    const state = exitDump
      ? await saveExitDump(anvil, plainState, stateFile, progress)
      : await saveTracelessState(Readable.from([await anvil.dumpState()]).pipe(createGunzip()), stateFile);
    progress(
      `saved the chain in ${((performance.now() - saved) / 1000).toFixed(1)} s: ${(state.plainBytes / 1e6).toFixed(0)} MB of JSON, ` +
        `${(state.keptBytes / 1e6).toFixed(0)} MB without traces, ${(state.bytes / 1e6).toFixed(1)} MB gzipped`,
    );
    const deploymentsFile = join(dir, "deployments.json");
    await writeFileAtomic(deploymentsFile, json(deployments));
    const history: History = {
      name,
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
      stateJsonBytes: state.keptBytes,
      generation: {
        actionsPerTransaction: batch,
        dumpedJsonBytes: state.plainBytes,
        anvilPeakBytes: peakRss,
        savedInSeconds: Math.round((performance.now() - saved) / 1000),
      },
      ...(twin
        ? {
            foreign: {
              ratio,
              events: foreignTally.events,
              bySource: foreignTally.bySource,
              tokenTransfers: foreignTally.tokenTransfers,
              launches: foreign?.launches ?? 0,
              transactions: foreignTally.transactions,
            },
          }
        : {}),
    };
    if (foreign && foreignTally.events < ratio * history.indexedEvents)
      progress(`only ${foreignTally.events} foreign events against ${history.indexedEvents} of ours: fewer than ${ratio} to 1`);
    await anvil.stop();
    // Written last: its presence says the state and deployments before it are complete.
    await writeFileAtomic(join(dir, "meta.json"), json(history));
    return history;
  } catch (error) {
    // A large history's anvil would dump gigabytes at exit for nothing: stop it without its dump.
    if (exitDump) anvil.process.kill("SIGKILL");
    await anvil.stop();
    rmSync(plainState, { force: true });
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { benchArgs } = await import("./args.js");
  const flags = benchArgs(
    `
Usage: npx tsx bench/history.ts [flags]

  --events <n>    our events (default 1000)
  --seed <n>      the generator's seed (default 7)
  --batch <n>     trader actions per transaction whatever the size (its own cache, -b<n>), to try batching on small histories
  --foreign <r>   a twin history with strangers' events r times ours beside them (0: the clean twin; its own cache, -foreign<r>)
  --help, -h      this text
`,
    { events: { type: "string" }, seed: { type: "string" }, batch: { type: "string" }, foreign: { type: "string" } },
  );
  const events = flags.number("events", 1000, { min: 1 });
  const seed = flags.number("seed", 7);
  const batch = flags.values.batch === undefined ? undefined : flags.number("batch", 1, { min: 1 });
  const foreign = flags.values.foreign === undefined ? undefined : flags.number("foreign", 0, { min: 0, integer: false });
  const { freePort } = await import("../devnet/ports.js");
  const h = await ensureHistory(events, seed, await freePort(), (m) => console.log(m), { batch, foreign });
  console.log(`${h.name}: ${h.indexedEvents} indexed events, ${h.tokenTransfers} token transfers, head ${h.head}, generated in ${h.generatedInSeconds}s`);
}
