/**
 * Foreign activity for a benchmark history (`--foreign <ratio>`): what Base's shared contracts
 * carry beside ours. Strangers launch through the same Clanker launcher (their own reward
 * recipients, never enrolled, WETH-paired) and trade in their pools (swaps straight against the
 * v4 PoolManager through their own BenchBatchers), burn their tokens and collect their fees, in
 * the same blocks as our activity, until their events outnumber ours `ratio` to 1.
 *
 * Our activity must come out the same with and without it, so that the indexed tables can be
 * compared row for row (`bench/noise.ts`):
 * - strangers are accounts no flow of ours uses (`FOREIGN_ACCOUNTS`), funded with
 *   `anvil_setBalance` (no transaction of ours pays for them: our nonces, hence our transaction
 *   hashes, are the same) and paired with WETH they wrap themselves (USDC only the operator mints);
 * - their choices come from their own random stream (`mulberry32(seed ^ FOREIGN_SEED)`), never
 *   from ours;
 * - every foreign transaction is sent after ours of the same block: anvil orders equal tips by
 *   arrival, so our transactions and logs keep their positions (log indexes are in our rows' ids);
 * - no foreign transaction mines a block of its own, and a twin history's blocks are large
 *   enough (`TWIN_GAS_LIMIT`) that each of our batches is one block with or without strangers,
 *   on a clock that moves `TWIN_BLOCK_SECONDS` a block from `TWIN_GENESIS_TIME` (history.ts).
 */
import {
  type Abi,
  type Address,
  type Hex,
  encodeDeployData,
  encodeFunctionData,
  erc20Abi,
  getContractAddress,
  keccak256,
  parseAbi,
  parseEther,
  toHex,
} from "viem";
import { FeeIn, clankerFactoryAbi, clankerLpLockerAbi } from "../common/abis/clanker.js";
import { DEVNET_CHAIN_ID } from "../common/config.js";
import { DEAD_ADDRESS } from "../common/constants.js";
import { buildDeploymentConfig } from "../common/deploy-config.js";
import type { PoolKey } from "../common/uniswap.js";
import { compileProject } from "../devnet/compile.js";
import { type DevnetContext, createDevnetContext } from "../devnet/context.js";
import { mulberry32 } from "../devnet/market.js";
import { devnetLaunchFees, devnetPrivateKey } from "../devnet/protocol.js";

/** HD indexes of the strangers: the first launches, every one trades. None is an anvil-funded account (0..9). */
export const FOREIGN_ACCOUNTS = [20, 21, 22, 23, 24];
const FOREIGN_SEED = 0x5eed_f0e1;
/** Actions per foreign batcher transaction. */
export const FOREIGN_BATCH = 40;
/**
 * Gas a foreign action may take. Swaps through the Clanker hook that cross many ticks take
 * well over 60k, and a fee collection that converts takes several hundred thousand: at 150k an
 * action, one batch in about 250 ran out, and an unlock out of gas drops every event of its
 * transaction (enough, in a 40-event twin, to fall short of the ratio). Blocks are
 * `TWIN_GAS_LIMIT` large; only the gas used is paid.
 */
const GAS_PER_ACTION = 500_000n;
const LAUNCH_GAS = 4_500_000n;
const wethAbi = parseAbi(["function deposit() payable"]);
const batcherAbi = parseAbi([
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "function addPools(PoolKey[] keys)",
  "function act(uint256[] swaps, address[] targets, bytes[] data)",
]);
/** A swap as BenchBatcher takes it: pool index, direction and amount in one word. */
const packSwap = (pool: number, zeroForOne: boolean, amountIn: bigint) => (BigInt(pool) << 129n) | (zeroForOne ? 1n << 128n : 0n) | amountIn;

/** What a foreign account needs of history.ts's sender: its own nonces, sends without waiting. */
export type ForeignSender = {
  ctx: DevnetContext;
  nonce: number;
  send: (to: Address | undefined, data: Hex, value?: bigint, gas?: bigint) => Promise<Hex>;
};

export class ForeignActivity {
  readonly random: () => number;
  readonly senders: ForeignSender[];
  readonly batchers = new Map<ForeignSender, Address>();
  /** Foreign tokens launched so far; `traded` are those whose pools the batchers know. */
  readonly tokens: Address[] = [];
  readonly traded: Address[] = [];
  private readonly keys = new Map<Address, PoolKey>();
  private launched = 0;

  constructor(
    readonly rpcUrl: string,
    readonly contracts: Record<string, Address>,
    seed: number,
    makeSender: (ctx: DevnetContext) => ForeignSender,
  ) {
    this.random = mulberry32(seed ^ FOREIGN_SEED);
    this.senders = FOREIGN_ACCOUNTS.map((i) => makeSender(createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(i))));
  }

  /** Foreign launches sent. */
  get launches(): number {
    return this.launched;
  }

  get accounts(): Set<string> {
    return new Set(this.senders.map((s) => s.ctx.account.address.toLowerCase()));
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  /**
   * Funds the strangers (no transaction), then, in the block being filled: each deploys its
   * batcher and wraps WETH into it, and the first launches `launches` tokens.
   */
  async setup(launches: number): Promise<void> {
    const rpc = this.senders[0]!.ctx.publicClient;
    for (const s of this.senders) {
      await rpc.request({ method: "anvil_setBalance" as never, params: [s.ctx.account.address, toHex(parseEther("10000000"))] as never });
      s.nonce = await rpc.getTransactionCount({ address: s.ctx.account.address, blockTag: "pending" });
    }
    const artifact = compileProject().BenchBatcher!;
    const bytecode = encodeDeployData({ abi: artifact.abi as Abi, bytecode: artifact.bytecode as Hex, args: [this.contracts.v4PoolManager!] });
    for (const s of this.senders) {
      const batcher = getContractAddress({ from: s.ctx.account.address, nonce: BigInt(s.nonce) });
      await s.send(undefined, bytecode, 0n, 3_000_000n);
      this.batchers.set(s, batcher);
      await s.send(this.contracts.weth!, encodeFunctionData({ abi: wethAbi, functionName: "deposit" }), parseEther("100000"), 100_000n);
      await s.send(this.contracts.weth!, encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [batcher, parseEther("100000")] }), 0n, 100_000n);
    }
    // The hook takes its protocol fee in WETH out of the PoolManager during each swap, before a
    // batch settles at its end: a float of WETH in the PoolManager (a stray balance, outside v4's
    // accounting) lets a batch of buys pay those fees up front.
    const s0 = this.senders[0]!;
    await s0.send(this.contracts.weth!, encodeFunctionData({ abi: wethAbi, functionName: "deposit" }), parseEther("10000"), 100_000n);
    await s0.send(
      this.contracts.weth!,
      encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [this.contracts.v4PoolManager!, parseEther("10000")] }),
      0n,
      100_000n,
    );
    for (let i = 0; i < launches; i++) await this.launch();
  }

  /** One stranger's launch through our launcher: WETH-paired, every reward to the stranger, never enrolled. */
  async launch(): Promise<void> {
    const s = this.senders[0]!;
    const me = s.ctx.account.address;
    const n = this.launched++;
    const config = buildDeploymentConfig({
      tokenAdmin: me,
      name: `Stranger ${n}`,
      symbol: `STR${n}`,
      salt: keccak256(toHex(`stranger-${n}`)),
      chainId: DEVNET_CHAIN_ID,
      pairedToken: this.contracts.weth!,
      locker: this.contracts.lpLocker!,
      rewards: [{ admin: me, recipient: me, bps: 10_000, feeIn: FeeIn.Paired }],
      startingMarketCap: parseEther("5"),
      fees: devnetLaunchFees({ clankerHook: this.contracts.clankerHook!, mevModule: this.contracts.mevModule! }),
    });
    await s.send(this.contracts.launcher!, encodeFunctionData({ abi: clankerFactoryAbi, functionName: "deployToken", args: [config] }), 0n, LAUNCH_GAS);
  }

  /** After the launches are mined: the strangers' tokens, among `created` (every launch's token and admin). */
  async adopt(created: { token: Address; tokenAdmin: Address }[]): Promise<void> {
    const me = this.senders[0]!.ctx.account.address.toLowerCase();
    for (const c of created) if (c.tokenAdmin.toLowerCase() === me && !this.tokens.includes(c.token)) this.tokens.push(c.token);
  }

  /** Adds the launched, not yet traded pools to every batcher (sent into the block being filled); trading starts after their auction. */
  async addPools(): Promise<void> {
    const fresh = this.tokens.filter((t) => !this.traded.includes(t));
    if (!fresh.length) return;
    const reader = this.senders[0]!.ctx;
    for (const token of fresh) {
      const info = await reader.read<{ poolKey: PoolKey }>(this.contracts.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
      this.keys.set(token, info.poolKey);
    }
    for (const [s, batcher] of this.batchers) {
      const pools = fresh.map((t) => this.keys.get(t)!);
      await s.send(batcher, encodeFunctionData({ abi: batcherAbi, functionName: "addPools", args: [pools] }), 0n, 200_000n + 150_000n * BigInt(pools.length));
    }
    this.traded.push(...fresh);
  }

  /**
   * About `events` foreign events into the block being filled: batcher transactions of
   * `FOREIGN_BATCH` actions (65% swaps, 33% burns, 2% fee collections) over the traded pools.
   * Returns the transactions sent.
   */
  async trade(events: number): Promise<number> {
    if (!this.traded.length || events <= 0) return 0;
    const weth = this.contracts.weth!.toLowerCase();
    const txs = Math.ceil(events / FOREIGN_BATCH);
    for (let k = 0; k < txs; k++) {
      const s = this.pick(this.senders);
      const subset = [this.pick(this.traded), this.pick(this.traded), this.pick(this.traded)];
      const swaps: bigint[] = [];
      const calls: [Address, Hex][] = [];
      for (let a = 0; a < FOREIGN_BATCH; a++) {
        const token = this.pick(subset);
        const key = this.keys.get(token)!;
        const wethIs0 = key.currency0.toLowerCase() === weth;
        const r = this.random();
        const pool = this.traded.indexOf(token);
        if (r < 0.4) swaps.push(packSwap(pool, wethIs0, parseEther("0.0002") * BigInt(1 + Math.floor(this.random() * 50))));
        else if (r < 0.65) swaps.push(packSwap(pool, !wethIs0, 10n ** 24n * BigInt(1 + Math.floor(this.random() * 200))));
        else if (r < 0.98)
          calls.push([
            token,
            encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [DEAD_ADDRESS, 10n ** 22n * BigInt(1 + Math.floor(this.random() * 100))] }),
          ]);
        else calls.push([this.contracts.lpLocker!, encodeFunctionData({ abi: clankerLpLockerAbi as Abi, functionName: "collectRewards", args: [token] })]);
      }
      const data = encodeFunctionData({ abi: batcherAbi, functionName: "act", args: [swaps, calls.map(([to]) => to), calls.map(([, d]) => d)] });
      await s.send(this.batchers.get(s)!, data, 0n, GAS_PER_ACTION * BigInt(FOREIGN_BATCH) + 400_000n);
    }
    return txs;
  }
}
