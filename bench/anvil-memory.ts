/**
 * anvil's resident memory per block under the market simulator's traffic, for each way of
 * bounding what it keeps (docs/operations.md, "The devnet's memory").
 *
 * The devnet is deployed once (as `npm start` does: automine, then its state saved); each
 * candidate then loads that state into a fresh anvil started by `startAnvil` with the
 * candidate's arguments, sets a block a second as `npm start` does (or did: anvil's interval
 * mining, which also sets anvil's state-history limit), then automine, and runs two phases while
 * /proc/<pid>/status VmRSS is sampled:
 *   - traffic: mining paused, the market simulator's rounds (`step()`) on automine, so every
 *     transaction is a block of its own — the npm start devnet's busy blocks;
 *   - empty blocks: `evm_mine` one at a time — the npm start devnet's idle seconds.
 * Then what our code asks of old blocks: logs from the deploy block, an old receipt, a call at
 * a block before the candidate's history window and one inside it.
 *
 *   npx tsx bench/anvil-memory.ts [--blocks 1000] [--empty 3000] [--only name] [--args "anvil arguments"] [--state FILE]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Hex, erc20Abi, encodeFunctionData } from "viem";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY, type Deployments } from "../common/config.js";
import { rpc, startAnvil } from "../devnet/anvil.js";
import { createDevnetContext } from "../devnet/context.js";
import { deployDevnet } from "../devnet/deploy.js";
import { startMarket } from "../devnet/market.js";
import { freePort } from "../devnet/ports.js";
import { benchArgs } from "./args.js";
import { rssMb } from "./memory.js";

const USAGE = `
Usage: npx tsx bench/anvil-memory.ts [flags]

  --blocks <n>    blocks of market traffic per candidate (default 1000)
  --empty <n>     empty blocks per candidate (default 3000)
  --only <name>   only the candidates whose name contains this
  --args "<…>"    measure these anvil arguments alone
  --state <file>  keep the deployed devnet's state in this file and reuse it on the next run
  --help, -h      this text
`;
const flags = benchArgs(USAGE, {
  blocks: { type: "string" },
  empty: { type: "string" },
  only: { type: "string" },
  args: { type: "string" },
  state: { type: "string" },
});
const TRAFFIC_BLOCKS = flags.number("blocks", 1000, { min: 0 });
const EMPTY_BLOCKS = flags.number("empty", 3000, { min: 0 });
const only = flags.values.only;
/** Keep the deployed devnet's state in this file and reuse it on the next run. */
const keepState = flags.values.state;

/**
 * `interval`: the devnet once set anvil's interval mining (`evm_setIntervalMining 1`, as npm
 * start did); `timer`: `setBlockTime(1)`, startAnvil's own block timer (as npm start does now).
 */
type Candidate = { name: string; mining: "interval" | "timer"; stateHistoryBlocks?: number; extraArgs?: string[] };
const CANDIDATES: Candidate[] = [
  { name: "anvil's default, interval mining", mining: "interval" },
  { name: "--prune-history 256, interval mining", mining: "interval", extraArgs: ["--prune-history", "256"] },
  { name: "--max-persisted-states 0, interval mining", mining: "interval", extraArgs: ["--max-persisted-states", "0"] },
  { name: "--transaction-block-keeper 256, interval mining", mining: "interval", extraArgs: ["--transaction-block-keeper", "256"] },
  { name: "anvil's default, block timer", mining: "timer" },
  { name: "--prune-history 256, block timer (npm start)", mining: "timer", stateHistoryBlocks: 256 },
  { name: "--prune-history 64, block timer", mining: "timer", stateHistoryBlocks: 64 },
];

/** `--args "…"`: measure these anvil arguments alone. */
const custom = flags.values.args;
if (custom) CANDIDATES.splice(0, CANDIDATES.length, { name: custom, mining: "timer", extraArgs: custom.split(/\s+/) });

/** Resident memory of anvil, in MB (NaN once it has exited). */
const rss = (pid: number) => rssMb(pid) ?? Number.NaN;

const head = async (url: string) => Number(BigInt(await rpc<Hex>(url, "eth_blockNumber")));

const dir = mkdtempSync(join(tmpdir(), "anvil-memory-"));
const stateFile = keepState ?? join(dir, "deployed.json");
const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);

try {
  // 1. The devnet, deployed once as npm start deploys it.
  const deployer = await startAnvil({ port: await freePort(), stateFile, saveIntervalSeconds: 0 });
  const ctx = createDevnetContext(deployer.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
  const deployments = existsSync(`${stateFile}.deployments.json`)
    ? (JSON.parse(readFileSync(`${stateFile}.deployments.json`, "utf8")) as Deployments)
    : await deployDevnet(ctx, (step) => log(`deploy: ${step}`));
  writeFileSync(`${stateFile}.deployments.json`, JSON.stringify(deployments));
  const firstTx = (await rpc<{ transactions: Hex[] }>(deployer.rpcUrl, "eth_getBlockByNumber", ["0x1", false])).transactions[0]!;
  await deployer.stop();
  log(`deployed; state in ${stateFile}`);

  const rows: string[] = [];
  for (const candidate of CANDIDATES) {
    if (only && !candidate.name.includes(only)) continue;
    const anvil = await startAnvil({
      port: await freePort(),
      loadStateFile: stateFile,
      stateHistoryBlocks: candidate.stateHistoryBlocks,
      extraArgs: candidate.extraArgs,
    });
    const pid = anvil.process.pid!;
    try {
      const url = anvil.rpcUrl;
      // npm start: a block a second from here on; back to automine for the measurement.
      if (candidate.mining === "interval") {
        await rpc(url, "evm_setIntervalMining", [1]);
        await rpc(url, "evm_setIntervalMining", [0]);
        await rpc(url, "evm_setAutomine", [true]);
      } else {
        await anvil.setBlockTime(1);
        await anvil.setBlockTime(0);
      }
      const start = { block: await head(url), rss: rss(pid) };
      const market = startMarket({ rpcUrl: url, deployments: { ...deployments, rpcUrl: url }, seed: 7 });
      let txs = 0;
      let peak = start.rss;
      while ((await head(url)) - start.block < TRAFFIC_BLOCKS) {
        const actions = await market.step();
        txs += actions.length;
        peak = Math.max(peak, rss(pid));
      }
      await market.stop();
      const traffic = { block: await head(url), rss: rss(pid) };
      const series: string[] = [];
      for (let i = 0; i < EMPTY_BLOCKS; i++) {
        await rpc(url, "evm_mine");
        if (i % 100 === 0) peak = Math.max(peak, rss(pid));
        if (i % 500 === 499) series.push(rss(pid).toFixed(0));
      }
      log(`${candidate.name}: RSS MB every 500 empty blocks: ${series.join(", ")}`);
      const empty = { block: await head(url), rss: rss(pid) };
      peak = Math.max(peak, empty.rss);
      const trafficBlocks = traffic.block - start.block;
      const emptyBlocks = empty.block - traffic.block;
      const perTraffic = ((traffic.rss - start.rss) / trafficBlocks) * 1000;
      const perEmpty = ((empty.rss - traffic.rss) / emptyBlocks) * 1000;

      // 2. What our code asks of old blocks.
      const logs = await rpc<unknown[]>(url, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: deployments.contracts.usdc }]).then(
        (l) => `${l.length} USDC logs from block 0`,
        (e: Error) => `getLogs failed: ${e.message}`,
      );
      const receipt = await rpc<{ logs: unknown[] } | null>(url, "eth_getTransactionReceipt", [firstTx]).then(
        (r) => (r ? "first receipt served" : "first receipt gone"),
        (e: Error) => `receipt failed: ${e.message}`,
      );
      const balanceCall = (block: number) =>
        rpc<Hex>(url, "eth_call", [
          { to: deployments.contracts.usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [deployments.operator] }) },
          `0x${block.toString(16)}`,
        ]).then(
          () => "ok",
          (e: Error) => `fails (${e.message.slice(0, 80)})`,
        );
      const recent = await balanceCall(empty.block - 30);
      const old = await balanceCall(Math.max(start.block + 1, empty.block - 1000));
      const row = `| ${candidate.name} | ${start.rss.toFixed(0)} | ${trafficBlocks} (${txs} actions) | ${perTraffic.toFixed(1)} | ${perEmpty.toFixed(1)} | ${peak.toFixed(0)} | ${empty.rss.toFixed(0)} | ${logs}; ${receipt} | call 30 blocks back ${recent}; ${Math.min(1000, empty.block - start.block - 1)} back ${old} |`;
      log(row);
      rows.push(row);
    } finally {
      await anvil.stop();
    }
  }
  process.stdout.write(
    `\n| anvil arguments | RSS at start MB | traffic blocks | MB per 1,000 traffic blocks | MB per 1,000 empty blocks | peak MB | end MB | old logs | past-block calls |\n|---|---|---|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
