import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../common/config.js";
import { startAnvil } from "../devnet/anvil.js";
import { createDevnetContext } from "../devnet/context.js";
import { deployDevnet } from "../devnet/deploy.js";
import { devnetPrivateKey } from "../devnet/protocol.js";
import { freePort } from "../devnet/ports.js";
import { compileProject } from "../devnet/compile.js";
import { buyToken, marketContracts } from "../devnet/market.js";
import { getAddress, parseAbi, type Address } from "viem";
import { clankerLpLockerAbi } from "../common/abis/clanker.js";
import { launchEnrolledTokens } from "./tokens-launch.js";
const batcherAbi = parseAbi([
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "function addPools(PoolKey[] keys)",
  "function act(uint256[] swaps, address[] targets, bytes[] data)",
  "function unlockCallback(bytes raw) returns (bytes)",
]);
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);
const anvil = await startAnvil({ port: await freePort(), chainId: DEVNET_CHAIN_ID });
try {
  const operator = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
  const deployments = await deployDevnet(operator);
  const { priceFeeds: _p, ...rest } = deployments.contracts;
  const c = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, getAddress(v as string)])) as Record<string, Address>;
  const launchers = [1, 2].map((i) => createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(i)));
  const r = await launchEnrolledTokens({ rpcUrl: anvil.rpcUrl, c, operator, launchers }, 2, { progress: console.log });
  const trader = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(5));
  const batcher = await trader.deploy(compileProject().BenchBatcher!, [c.v4PoolManager!]);
  await operator.write(c.usdc!, mintAbi, "mint", [batcher, 1_000_000_000_000n]);
  const info = await operator.read<{ poolKey: any }>(c.lpLocker!, clankerLpLockerAbi as never, "tokenRewards", [r.tokens[0]]);
  console.log(info.poolKey, c.usdc);
  await trader.write(batcher, batcherAbi, "addPools", [[info.poolKey]]);
  const zf = getAddress(info.poolKey.currency0) === c.usdc;
  const swaps = [(0n << 129n) | (zf ? 1n << 128n : 0n) | 100_000_000n];
  const hash = await trader.write(batcher, batcherAbi, "act", [swaps, [], []]);
  const rc = await trader.publicClient.getTransactionReceipt({ hash });
  console.log("act logs", rc.logs.length, rc.gasUsed);
  // simulate unlock directly from the pool manager perspective
  try {
    await trader.publicClient.call({
      account: c.v4PoolManager,
      to: batcher,
      data: (await import("viem")).encodeFunctionData({
        abi: batcherAbi,
        functionName: "unlockCallback",
        args: [(await import("viem")).encodeAbiParameters([{ type: "uint256[]" }], [swaps])],
      }),
    });
  } catch (e) {
    console.log("callback sim:", (e as Error).message.slice(0, 400));
  }
  const t2 = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(6));
  await operator.write(c.usdc!, mintAbi, "mint", [t2.account.address, 1_000_000_000n]);
  const mc = marketContracts(deployments);
  const h2 = await buyToken(
    t2,
    mc,
    {
      token: r.tokens[1]!,
      pairedToken: c.usdc!,
      poolKey: (await operator.read<{ poolKey: any }>(c.lpLocker!, clankerLpLockerAbi as never, "tokenRewards", [r.tokens[1]])).poolKey,
    },
    100_000_000n,
  );
  console.log("router buy logs", (await t2.publicClient.getTransactionReceipt({ hash: h2 })).logs.length);
} finally {
  await anvil.stop();
}
