/**
 * The parts of clanker-sdk's v4 surface the devnet gained, behaving as production's on a real
 * anvil: the token's ERC-5805 votes (OpenZeppelin's ERC20Votes, block-number clock) with
 * `delegateBySig` under the token's full name, its ERC-7802 functions reserved to the
 * SuperchainTokenBridge, ERC-165 answers; the factory's team fee recipient, interface checks,
 * extension limits and zero-supply deploys.
 */
import {
  type Abi,
  type Address,
  type Hex,
  BaseError,
  decodeErrorResult,
  encodeAbiParameters,
  erc20Abi,
  parseAbi,
  parseEventLogs,
  parseSignature,
  zeroAddress,
} from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { clankerFactoryAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../../common/config.js";
import { type DeploymentConfig, buildDeploymentConfig, launchSplitRewards, parseTokenCreated } from "../../common/deploy-config.js";
import { type Artifacts, compileProject } from "../../devnet/compile.js";
import { createDevnetContext } from "../../devnet/context.js";
import { buyToken, marketContracts } from "../../devnet/market.js";
import { devnetLaunchFees, devnetPrivateKey } from "../../devnet/protocol.js";
import { launchToken, poolKeyOf } from "../helpers/actions.js";
import { testEnv } from "../helpers/env.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const operator = deployments.operator;
const operatorCtx = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
const holder = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(4));
const other = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(5));
const receipt = (hash: Hex) => holder.publicClient.getTransactionReceipt({ hash });

let artifacts: Artifacts;
const tokenAbi = () => artifacts.ClankerToken!.abi;
const factoryAbi = () => artifacts.Clanker!.abi;

/** The custom error name a call reverted with, decoded with the devnet contract's own ABI. */
async function revertName(abi: Abi, promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    let data: Hex | undefined;
    if (error instanceof BaseError) {
      error.walk((e) => {
        const raw = (e as { raw?: Hex; data?: unknown }).raw ?? (e as { data?: unknown }).data;
        if (typeof raw === "string" && raw.startsWith("0x") && raw.length >= 10) data = raw as Hex;
        return false;
      });
    }
    if (!data) throw error;
    return decodeErrorResult({ abi, data }).errorName;
  }
  throw new Error("expected a revert");
}

let salt = 0;
function config(p: { name?: string; chainId?: number; extensions?: DeploymentConfig["extensionConfigs"] } = {}): DeploymentConfig {
  const base = buildDeploymentConfig({
    tokenAdmin: holder.account.address,
    name: p.name ?? "Surface",
    symbol: "SURF",
    salt: `0x${(Date.now() * 1000 + salt++).toString(16).padStart(64, "0")}`,
    chainId: p.chainId ?? DEVNET_CHAIN_ID,
    pairedToken: c.usdc!,
    locker: c.lpLocker!,
    rewards: launchSplitRewards({ operator, creator: holder.account.address }),
    startingMarketCap: 10_000n * 10n ** 6n,
    fees: devnetLaunchFees({ clankerHook: c.clankerHook!, mevModule: c.mevModule! }),
  });
  return p.extensions ? { ...base, extensionConfigs: p.extensions } : base;
}

beforeAll(() => {
  artifacts = compileProject();
});

describe("the token's votes (ERC-5805, as OpenZeppelin's ERC20Votes)", () => {
  const name = "A token whose name is longer than thirty-one bytes, with votes";
  let token: Address;

  beforeAll(async () => {
    ({ token } = await launchToken(holder, c, { name, symbol: "VOTE", operator, creator: holder.account.address }));
    // The holder buys some tokens to vote with.
    await buyToken(holder, marketContracts(deployments), { token, pairedToken: c.usdc!, poolKey: await poolKeyOf(holder, c, token) }, 100_000_000n);
  });

  const read = <T>(fn: string, args: unknown[] = []) => holder.read<T>(token, tokenAbi(), fn, args);

  it("has a block-number clock and no votes until a holder delegates", async () => {
    expect(await read<string>("CLOCK_MODE")).toBe("mode=blocknumber&from=default");
    // Read at a pinned block: the clock is that block's number.
    const blockNumber = await holder.publicClient.getBlockNumber();
    const clock = await holder.publicClient.readContract({ address: token, abi: tokenAbi(), functionName: "clock", blockNumber });
    expect(BigInt(clock as number)).toBe(blockNumber);
    expect(await read<bigint>("getVotes", [holder.account.address])).toBe(0n);
    expect(await read<Address>("delegates", [holder.account.address])).toBe(zeroAddress);
  });

  it("delegate: the delegatee's votes are the holder's balance, checkpointed, and follow transfers", async () => {
    const balance = await holder.read<bigint>(token, erc20Abi, "balanceOf", [holder.account.address]);
    expect(balance).toBeGreaterThan(0n);
    const r = await receipt(await holder.write(token, tokenAbi(), "delegate", [holder.account.address]));
    const events = parseEventLogs({ abi: tokenAbi(), logs: r.logs }) as unknown as { eventName: string; args: Record<string, unknown> }[];
    expect(events.find((e) => e.eventName === "DelegateChanged")!.args).toEqual({
      delegator: holder.account.address,
      fromDelegate: zeroAddress,
      toDelegate: holder.account.address,
    });
    expect(events.find((e) => e.eventName === "DelegateVotesChanged")!.args).toEqual({
      delegate: holder.account.address,
      previousVotes: 0n,
      newVotes: balance,
    });
    expect(await read<bigint>("getVotes", [holder.account.address])).toBe(balance);
    expect(await read<number>("numCheckpoints", [holder.account.address])).toBe(1);
    expect(await read<{ _key: number; _value: bigint }>("checkpoints", [holder.account.address, 0])).toEqual({ _key: Number(r.blockNumber), _value: balance });

    const sent = balance / 4n;
    const t = await receipt(await holder.write(token, erc20Abi, "transfer", [other.account.address, sent]));
    expect(await read<bigint>("getVotes", [holder.account.address])).toBe(balance - sent);
    expect(await read<bigint>("getPastVotes", [holder.account.address, t.blockNumber - 1n])).toBe(balance);
    // The total supply is checkpointed at the mint (the launch).
    expect(await read<bigint>("getPastTotalSupply", [t.blockNumber - 1n])).toBe(await holder.read<bigint>(token, erc20Abi, "totalSupply"));
    expect(await revertName(tokenAbi(), read("getPastVotes", [holder.account.address, t.blockNumber + 10n]))).toBe("ERC5805FutureLookup");
  });

  it("delegateBySig is signed over the token's full name (no 31-byte limit) and uses the permit nonces", async () => {
    const signer = other.account;
    const nonce = await read<bigint>("nonces", [signer.address]);
    const domain = { name, version: "1", chainId: DEVNET_CHAIN_ID, verifyingContract: token };
    const types = {
      Delegation: [
        { name: "delegatee", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "expiry", type: "uint256" },
      ],
    };
    const message = { delegatee: holder.account.address, nonce, expiry: 2n ** 40n };
    const signature = parseSignature(await other.walletClient.signTypedData({ account: signer, domain, types, primaryType: "Delegation", message }));
    const before = await read<bigint>("getVotes", [holder.account.address]);
    await holder.write(token, tokenAbi(), "delegateBySig", [message.delegatee, message.nonce, message.expiry, Number(signature.v), signature.r, signature.s]);
    expect(await read<Address>("delegates", [signer.address])).toBe(holder.account.address);
    expect(await read<bigint>("getVotes", [holder.account.address])).toBe(before + (await holder.read<bigint>(token, erc20Abi, "balanceOf", [signer.address])));
    expect(await read<bigint>("nonces", [signer.address])).toBe(nonce + 1n);
    const [, eipName] = await read<readonly [Hex, string]>("eip712Domain");
    expect(eipName).toBe(name);
  });

  it("ERC-7802: only the SuperchainTokenBridge may mint or burn across chains; ERC-165 answers as production", async () => {
    for (const fn of ["crosschainMint", "crosschainBurn"]) {
      expect(
        await revertName(
          tokenAbi(),
          holder.publicClient.simulateContract({
            address: token,
            abi: tokenAbi(),
            functionName: fn,
            args: [holder.account.address, 1n],
            account: holder.account,
          }),
        ),
      ).toBe("Unauthorized");
    }
    const bridge = "0x4200000000000000000000000000000000000028" as const;
    const sim = await holder.publicClient.simulateContract({
      address: token,
      abi: tokenAbi(),
      functionName: "crosschainMint",
      args: [other.account.address, 5n],
      account: bridge,
    });
    expect(sim.request).toBeDefined();
    // IERC7802, IERC20, IERC165.
    for (const id of ["0x33331994", "0x36372b07", "0x01ffc9a7"]) expect(await read<boolean>("supportsInterface", [id]), id).toBe(true);
    expect(await read<boolean>("supportsInterface", ["0xffffffff"])).toBe(false);
  });
});

describe("the factory's production surface", () => {
  it("was initialised with the operator as team fee recipient, once", async () => {
    expect(await holder.read<Address>(c.launcher!, factoryAbi(), "teamFeeRecipient")).toBe(operator);
    expect(
      await revertName(
        factoryAbi(),
        operatorCtx.publicClient.simulateContract({
          address: c.launcher!,
          abi: factoryAbi(),
          functionName: "initialize",
          args: [operator],
          account: operatorCtx.account,
        }),
      ),
    ).toBe("AlreadyInitialized");
  });

  it("enables only contracts that declare the interface: InvalidHook, InvalidMevModule, InvalidLocker, InvalidExtension", async () => {
    const sim = (fn: string, args: unknown[]) =>
      operatorCtx.publicClient.simulateContract({ address: c.launcher!, abi: factoryAbi(), functionName: fn, args, account: operatorCtx.account });
    expect(await revertName(factoryAbi(), sim("setHook", [c.feeLocker, true]))).toBe("InvalidHook");
    expect(await revertName(factoryAbi(), sim("setMevModule", [c.clankerHook, true]))).toBe("InvalidMevModule");
    expect(await revertName(factoryAbi(), sim("setLocker", [c.feeLocker, c.clankerHook, true]))).toBe("InvalidLocker");
    expect(await revertName(factoryAbi(), sim("setExtension", [holder.account.address, true]))).toBe("InvalidExtension");
    // The real ones pass the check.
    await expect(sim("setHook", [c.clankerHook, true])).resolves.toBeDefined();
    await expect(sim("setMevModule", [c.mevModule, true])).resolves.toBeDefined();
    await expect(sim("setLocker", [c.lpLocker, c.clankerHook, true])).resolves.toBeDefined();
  });

  it("refuses more than 10 extensions, more than 90% of the supply to them, and extensions not enabled", async () => {
    const launch = (extensions: DeploymentConfig["extensionConfigs"]) =>
      holder.publicClient.simulateContract({
        address: c.launcher!,
        abi: clankerFactoryAbi,
        functionName: "deployToken",
        args: [config({ extensions })],
        account: holder.account,
      });
    const ext = (bps: number) => ({ extension: other.account.address, msgValue: 0n, extensionBps: bps, extensionData: "0x" as Hex });
    expect(await revertName(factoryAbi(), launch(Array.from({ length: 11 }, () => ext(1))))).toBe("MaxExtensionsExceeded");
    expect(await revertName(factoryAbi(), launch([ext(5_000), ext(4_001)]))).toBe("MaxExtensionBpsExceeded");
    expect(await revertName(factoryAbi(), launch([ext(1_000)]))).toBe("ExtensionNotEnabled");
  });

  it("an enabled extension receives its share of the supply; the pool gets the rest; TokenCreated and ExtensionTriggered say so", async () => {
    const extension = await operatorCtx.deploy(artifacts.DevnetAllocationExtension!, [c.launcher!]);
    const enabled = await receipt(await operatorCtx.write(c.launcher!, factoryAbi(), "setExtension", [extension, true]));
    const [setEvent] = parseEventLogs({ abi: factoryAbi(), eventName: "SetExtension", logs: enabled.logs }) as unknown as { args: unknown }[];
    expect(setEvent!.args).toEqual({ extension, enabled: true });

    const recipient = other.account.address;
    const deployment = config({
      extensions: [{ extension, msgValue: 0n, extensionBps: 1_500, extensionData: encodeAbiParameters([{ type: "address" }], [recipient]) }],
    });
    const r = await receipt(await holder.write(c.launcher!, clankerFactoryAbi as Abi, "deployToken", [deployment]));
    const created = parseTokenCreated(r, c.launcher);
    const supply = await holder.read<bigint>(created.token, erc20Abi, "totalSupply");
    const extensionSupply = (supply * 1_500n) / 10_000n;
    expect(created.extensionsSupply).toBe(extensionSupply);
    expect(created.extensions).toEqual([extension]);
    expect(await holder.read<bigint>(created.token, erc20Abi, "balanceOf", [recipient])).toBe(extensionSupply);
    const [triggered] = parseEventLogs({ abi: factoryAbi(), eventName: "ExtensionTriggered", logs: r.logs }) as unknown as { args: unknown }[];
    expect(triggered!.args).toEqual({ extension, extensionSupply, msgValue: 0n });
    const [added] = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "TokenRewardAdded", logs: r.logs });
    expect(added!.args.poolSupply).toBe(supply - extensionSupply);
    const info = await holder.read<{ extensions: readonly Address[] }>(c.launcher!, factoryAbi(), "tokenDeploymentInfo", [created.token]);
    expect(info.extensions).toEqual([extension]);
    // ETH sent must equal the extensions' msgValues.
    expect(
      await revertName(
        factoryAbi(),
        holder.publicClient.simulateContract({
          address: c.launcher!,
          abi: clankerFactoryAbi,
          functionName: "deployToken",
          args: [config({ extensions: deployment.extensionConfigs })],
          value: 1n,
          account: holder.account,
        }),
      ),
    ).toBe("ExtensionMsgValueMismatch");
  });

  it("deployTokenZeroSupply: refused on the originating chain; elsewhere a token with no supply at the launch address", async () => {
    const tokenConfig = config().tokenConfig;
    const deployZero = (t: typeof tokenConfig) =>
      holder.publicClient.simulateContract({
        address: c.launcher!,
        abi: factoryAbi(),
        functionName: "deployTokenZeroSupply",
        args: [t],
        account: holder.account,
      });
    expect(await revertName(factoryAbi(), deployZero(tokenConfig))).toBe("OnlyNonOriginatingChains");

    const elsewhere = { ...tokenConfig, originatingChainId: 8453n };
    const { result } = await deployZero(elsewhere);
    const r = await receipt(await holder.write(c.launcher!, factoryAbi(), "deployTokenZeroSupply", [elsewhere]));
    expect(r.status).toBe("success");
    expect(await holder.read<bigint>(result as Address, erc20Abi, "totalSupply")).toBe(0n);
    expect(await holder.read<string>(result as Address, erc20Abi, "name")).toBe(tokenConfig.name);
    expect(parseEventLogs({ abi: parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]), logs: r.logs })).toEqual([]);
  });
});
