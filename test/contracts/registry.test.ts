/**
 * The protocol registry's guards on the devnet: only the operator (anvil 0) may write, and a
 * split must give the asset, perp and creator legs exactly 9500 bps. Writes are simulated, so
 * the shared registry keeps only the devnet's own enrolments.
 */
import { type Address, keccak256, parseAbi, toHex, zeroHash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { registryAbi } from "../../common/abis/registry.js";
import { DEVNET_CHAIN_ID } from "../../common/config.js";
import { compileProject } from "../../devnet/compile.js";
import { createDevnetContext } from "../../devnet/context.js";
import { devnetPrivateKey } from "../../devnet/protocol.js";
import { testEnv } from "../helpers/env.js";

const { rpcUrl, deployments } = testEnv();
const registry = deployments.contracts.registry as Address;
const client = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(1)).publicClient;
// The compiled ABI carries the custom errors, so reverts decode by name.
const abi = [...registryAbi, ...compileProject().ProtocolRegistry!.abi.filter((item) => item.type === "error")];
const operator = deployments.operator;
const stranger = privateKeyToAccount(generatePrivateKey()).address;
const token = privateKeyToAccount(generatePrivateKey()).address;
const creator = privateKeyToAccount(generatePrivateKey()).address;

const simulate = (account: Address, functionName: "enroll" | "setActive" | "setHalted", args: readonly unknown[]) =>
  client.simulateContract({ account, address: registry, abi, functionName, args } as never);

describe("ProtocolRegistry", () => {
  it("has the devnet operator as its operator and the two devnet creator tokens enrolled", async () => {
    expect(await client.readContract({ address: registry, abi: parseAbi(["function operator() view returns (address)"]), functionName: "operator" })).toBe(
      operator,
    );
    expect(await client.readContract({ address: registry, abi, functionName: "enrolledCount" })).toBeGreaterThanOrEqual(2n);
    const enrolled = [0n, 1n].map((i) => client.readContract({ address: registry, abi, functionName: "enrolledAt", args: [i] }));
    expect(await Promise.all(enrolled)).toEqual([deployments.contracts.wethPairedToken, deployments.contracts.usdcPairedToken]);
  });

  it("lets the operator enrol a token with a split summing to 9500", async () => {
    await simulate(operator, "enroll", [token, creator, 2850, 5700, 950, keccak256(toHex("charter"))]);
    await simulate(operator, "enroll", [token, creator, 9500, 0, 0, zeroHash]);
  });

  it.each([
    [2850, 5700, 951],
    [2850, 5700, 949],
    [0, 0, 0],
    [9500, 1, 0],
    [10_000, 0, 0],
  ])("rejects the split %i/%i/%i (InvalidSplit)", async (assetBps, perpBps, creatorBps) => {
    await expect(simulate(operator, "enroll", [token, creator, assetBps, perpBps, creatorBps, zeroHash])).rejects.toThrow(/InvalidSplit/);
  });

  it.each([
    ["enroll", [token, creator, 2850, 5700, 950, zeroHash]],
    ["setActive", [deployments.contracts.usdcPairedToken, false]],
    ["setHalted", [deployments.contracts.usdcPairedToken, true]],
  ] as const)("rejects %s from anyone but the operator (NotOperator)", async (functionName, args) => {
    await expect(simulate(stranger, functionName, args)).rejects.toThrow(/NotOperator/);
    await expect(simulate(deployments.contracts.usdcPairedToken as Address, functionName, args)).rejects.toThrow(/NotOperator/);
  });

  it("rejects enrolling a token twice (AlreadyEnrolled)", async () => {
    await expect(simulate(operator, "enroll", [deployments.contracts.usdcPairedToken, creator, 2850, 5700, 950, zeroHash])).rejects.toThrow(/AlreadyEnrolled/);
  });
});
