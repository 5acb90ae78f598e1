/**
 * Many enrolled tokens on a devnet, fast: the `tokens` benchmark part and the engine's scale
 * test launch hundreds to thousands of Clanker tokens and enrol each.
 *
 * Method (measured, see docs/benchmarks.md): automine off, every launch and every enrolment
 * signed locally with explicit nonces and a fixed gas limit (one estimate for all), sent in
 * waves, then mined with `anvil_mine` until the pool is empty; launches come from several
 * accounts so each block fills to its gas limit. A launch is one `deployToken` (the token,
 * its pool and its LP positions: several million gas), so the chain's execution, not the
 * RPC round trips, sets the pace. Enrolment is `registry.enroll` from the operator (the
 * registry's only enroller), sent the same way.
 */
import { type Abi, type Address, type Hex, encodeFunctionData, getAddress, keccak256, parseEventLogs, toHex, zeroHash } from "viem";
import { clankerFactoryAbi } from "../common/abis/clanker.js";
import { registryAbi } from "../common/abis/registry.js";
import { DEFAULT_SPLIT } from "../common/constants.js";
import { buildDeploymentConfig, launchSplitRewards } from "../common/deploy-config.js";
import { rpc } from "../devnet/anvil.js";
import type { DevnetContext } from "../devnet/context.js";
import { advancePastAuction, devnetLaunchFees } from "../devnet/protocol.js";

export type LaunchTarget = {
  rpcUrl: string;
  c: Record<string, Address>;
  /** The operator (the registry's enroller). */
  operator: DevnetContext;
  /** Accounts that send the launches (each its own nonce sequence). */
  launchers: DevnetContext[];
};

export type Launched = { tokens: Address[]; launchSeconds: number; enrolSeconds: number; blocks: number };

/** Signs `data` to `to` from `s` at `nonce` locally and sends it (no wait, no client timeout: a loaded anvil may take long to accept). */
async function sendAt(s: DevnetContext, to: Address, data: Hex, gas: bigint, nonce: number): Promise<Hex> {
  const signed = await (s.account as unknown as { signTransaction: (tx: object) => Promise<Hex> }).signTransaction({
    type: "eip1559",
    chainId: s.chainId,
    to,
    data,
    gas,
    nonce,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: 1n,
  });
  return rpc<Hex>(s.rpcUrl, "eth_sendRawTransaction", [signed]);
}

/** Every launch and enrolment pays at most this per gas; the base fee is held at 1 gwei while they are mined. */
const MAX_FEE = 10_000_000_000n;
const BASE_FEE = "0x3b9aca00";

/**
 * Mines until the transaction pool is empty; returns the blocks mined. Full blocks would raise
 * the base fee 12.5% each, past what the waiting transactions offer: it is reset before each block.
 */
async function mineAll(url: string): Promise<number> {
  let blocks = 0;
  let last = Number.POSITIVE_INFINITY;
  let stalled = 0;
  for (;;) {
    const pending = Number((await rpc<{ pending: Hex }>(url, "txpool_status")).pending);
    if (pending === 0) return blocks;
    stalled = pending < last ? 0 : stalled + 1;
    if (stalled > 5) throw new Error(`${pending} transactions stay in the pool`);
    last = pending;
    await rpc(url, "anvil_setNextBlockBaseFeePerGas", [BASE_FEE]);
    await rpc(url, "anvil_mine", ["0x1"]);
    blocks++;
  }
}

/** Sends `items` as transactions in waves of `wave` (at most `SENDING` in flight), mining after each wave. */
async function sendWaves<T>(url: string, items: T[], wave: number, send: (item: T, i: number) => Promise<Hex>): Promise<{ hashes: Hex[]; blocks: number }> {
  const hashes: Hex[] = [];
  let blocks = 0;
  for (let i = 0; i < items.length; i += wave) {
    const chunk = items.slice(i, i + wave);
    for (let j = 0; j < chunk.length; j += SENDING) {
      hashes.push(...(await Promise.all(chunk.slice(j, j + SENDING).map((item, k) => send(item, i + j + k)))));
    }
    blocks += await mineAll(url);
  }
  return { hashes, blocks };
}

/** Transactions sent at once. */
const SENDING = 25;

/**
 * Launches `n` USDC-paired tokens (the enrolled split: operator and a creator), enrols each,
 * and mines past their sniper auctions. `progress` reports each wave.
 */
export async function launchEnrolledTokens(
  t: LaunchTarget,
  n: number,
  options: { seed?: string; wave?: number; progress?: (msg: string) => void } = {},
): Promise<Launched> {
  const { c, operator } = t;
  const url = t.rpcUrl;
  const wave = options.wave ?? 200;
  const seed = options.seed ?? `${Date.now()}`;
  const creator = t.launchers[0]!.account.address;
  const config = (i: number) =>
    buildDeploymentConfig({
      tokenAdmin: creator,
      name: `Scale ${i}`,
      symbol: `S${i}`,
      image: "https://example.com/t.png",
      salt: keccak256(toHex(`scale-${seed}-${i}`)),
      chainId: operator.chainId,
      pairedToken: c.usdc!,
      locker: c.lpLocker!,
      rewards: launchSplitRewards({ operator: operator.account.address, creator }),
      startingMarketCap: 10_000_000_000n,
      fees: devnetLaunchFees({ clankerHook: c.clankerHook!, mevModule: c.mevModule! }),
    });
  const launchData = (i: number) => encodeFunctionData({ abi: clankerFactoryAbi as Abi, functionName: "deployToken", args: [config(i)] });
  const gas = ((await t.launchers[0]!.publicClient.estimateGas({ account: t.launchers[0]!.account, to: c.launcher!, data: launchData(0) })) * 3n) / 2n;
  const nonces = await Promise.all(t.launchers.map((s) => s.publicClient.getTransactionCount({ address: s.account.address, blockTag: "pending" })));

  await rpc(url, "evm_setAutomine", [false]);
  try {
    const started = performance.now();
    const indexes = Array.from({ length: n }, (_, i) => i);
    const launched = await sendWaves(url, indexes, wave, (i) => {
      const k = i % t.launchers.length;
      return sendAt(t.launchers[k]!, c.launcher!, launchData(i), gas, nonces[k]!++);
    });
    const tokens: Address[] = [];
    for (const hash of launched.hashes) {
      const receipt = await operator.publicClient.getTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`launch ${hash} reverted`);
      const [created] = parseEventLogs({ abi: clankerFactoryAbi, eventName: "TokenCreated", logs: receipt.logs });
      tokens.push(getAddress(created!.args.tokenAddress));
    }
    const launchSeconds = (performance.now() - started) / 1000;
    options.progress?.(`launched ${n} tokens in ${launchSeconds.toFixed(1)} s (${launched.blocks} blocks)`);

    const enrolStarted = performance.now();
    let nonce = await operator.publicClient.getTransactionCount({ address: operator.account.address, blockTag: "pending" });
    const { assetBps, perpBps, creatorBps } = DEFAULT_SPLIT;
    const enrolled = await sendWaves(url, tokens, wave, (token) =>
      sendAt(
        operator,
        c.registry!,
        encodeFunctionData({ abi: registryAbi, functionName: "enroll", args: [token, creator, assetBps, perpBps, creatorBps, zeroHash] }),
        300_000n,
        nonce++,
      ),
    );
    for (const hash of [enrolled.hashes[0], enrolled.hashes.at(-1)]) {
      if (hash && (await operator.publicClient.getTransactionReceipt({ hash })).status !== "success") throw new Error(`enrolment ${hash} reverted`);
    }
    const enrolSeconds = (performance.now() - enrolStarted) / 1000;
    options.progress?.(`enrolled them in ${enrolSeconds.toFixed(1)} s (${enrolled.blocks} blocks)`);
    return { tokens, launchSeconds, enrolSeconds, blocks: launched.blocks + enrolled.blocks };
  } finally {
    await rpc(url, "evm_setAutomine", [true]);
    // Past every launch's MEV module (at most two minutes), so the pools trade at their own fee and collects take fees.
    await advancePastAuction({ request: (args: { method: string; params?: unknown[] }) => rpc(url, args.method, args.params ?? []) } as never, 121);
  }
}
