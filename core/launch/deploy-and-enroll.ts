/**
 * The operator's transactions behind `POST /tokens/launch` and `POST /tokens/register`: deploy
 * through the Clanker v4 launcher, then `registry.enroll`. Every call is simulated first, so a
 * revert reaches the client as a 502 naming the decoded reason before any gas is spent; then it
 * goes through the operator's transaction pipeline (see sender.ts).
 *
 * With an idempotency key, a retried request finds the transactions of the first one instead
 * of sending again: the deploy salt and every intent key derive from it.
 */
import { randomBytes } from "node:crypto";
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  InsufficientFundsError,
  type PublicClient,
  type TransactionReceipt,
  encodeFunctionData,
  getAddress,
  keccak256,
  parseAbi,
  toHex,
  zeroHash,
} from "viem";
import { clankerFactoryAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { knownErrorsAbi } from "../../common/abis/errors.js";
import { registryAbi } from "../../common/abis/registry.js";
import { type Config, MissingConfigError, requireContract, requireLaunchFees } from "../../common/config.js";
import { PROTOCOL_REWARD_BPS } from "../../common/constants.js";
import { type RewardSlot, splitDifferences } from "../../common/honoured-split.js";
import type { Split } from "../../common/split.js";
import { launcherReason } from "./agent.js";
import { LaunchConfigError, buildDeploymentConfig, launchSplitRewards, parseTokenCreated } from "../../common/deploy-config.js";
import { EngineError, Refusal } from "../errors.js";
import type { OperatorSender } from "./sender.js";

/** Starting market cap of an API launch: 10,000 USDC for the whole supply, like the protocol token. */
export const LAUNCH_MARKET_CAP_USDC = 10_000_000_000n;

const launcherViewsAbi = parseAbi(["function deploymentInfoForToken(address token) view returns (address token_, address hook, address locker)"]);

export type SplitBps = Split & { protocolBps: number };
export type LaunchRequest = {
  name: string;
  symbol: string;
  image: string;
  description?: string;
  creator?: Address;
  split: Split;
  idempotencyKey?: string;
};
export type LaunchResult = { token: Address; txHash: Hex; poolId: Hex; enrollTxHash: Hex; creator: Address; split: SplitBps };
export type RegisterRequest = { token: Address; creator?: Address; split: Split; idempotencyKey?: string };
export type RegisterResult = { token: Address; txHash: Hex; creator: Address; split: SplitBps };

export interface LaunchPort {
  launch(request: LaunchRequest): Promise<LaunchResult>;
  register(request: RegisterRequest): Promise<RegisterResult>;
}

type ContractCall = { key: string; kind: string; to: Address; abi: Abi; functionName: string; args: readonly unknown[] };

const withSplit = (split: Split): SplitBps => ({ protocolBps: PROTOCOL_REWARD_BPS, ...split });

/**
 * `Name(args)` of a revert (the launcher's own errors named too), or its reason string;
 * undefined if `error` is not a revert.
 */
export function revertReason(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(revert instanceof ContractFunctionRevertedError)) return undefined;
  if (revert.data?.errorName) return `${revert.data.errorName}(${(revert.data.args ?? []).map(String).join(", ")})`;
  if (revert.reason) return revert.reason;
  if (revert.signature) return launcherReason(`unknown error ${revert.signature}`);
  return "no reason given";
}

/** Maps a chain failure to the HTTP error the client sees. */
export function chainError(error: unknown, what: string): Refusal {
  if (error instanceof Refusal) return error;
  if (error instanceof MissingConfigError) return new Refusal("unavailable", error.message, "NOT_CONFIGURED");
  // The pipeline keeps an intent resumable when the RPC or the database stays unreachable.
  if (error instanceof EngineError && error.retryable) {
    const code = error.code === "database-unavailable" ? "DATABASE_UNAVAILABLE" : "CHAIN_UNAVAILABLE";
    return new Refusal("unavailable", `${what}: the chain or database is unavailable (${error.code}); retry`, code);
  }
  const reason = revertReason(error);
  if (reason !== undefined) return new Refusal("chain", `${what} reverted: ${reason}`);
  if (error instanceof BaseError && error.walk((e) => e instanceof InsufficientFundsError)) {
    return new Refusal("underfunded", `${what}: the operator wallet cannot pay for gas`);
  }
  const message = error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error);
  return new Refusal("chain", `${what} failed: ${message}`);
}

/** The launcher's config; what it would refuse is the caller's input (400). */
function launchConfig(p: Parameters<typeof buildDeploymentConfig>[0]) {
  try {
    return buildDeploymentConfig(p);
  } catch (error) {
    if (error instanceof LaunchConfigError) throw new Refusal("invalid", error.message);
    throw error;
  }
}

export type ChainLauncherDeps = {
  config: Config;
  publicClient: PublicClient;
  /** Sends lazily: a read-only API never needs the operator key or the pipeline. */
  sender: OperatorSender;
};

export function createChainLauncher({ config, publicClient, sender }: ChainLauncherDeps): LaunchPort {
  /** An earlier mined transaction with this key, or: simulate (mapping a revert), then send. */
  async function simulateAndSend(call: ContractCall, what: string, onRevert?: (reason: string) => Refusal | undefined): Promise<TransactionReceipt> {
    const previous = await sender.previous(call.key);
    if (previous) return previous;
    try {
      await publicClient.simulateContract({
        address: call.to,
        abi: call.abi,
        functionName: call.functionName,
        args: call.args,
        account: await sender.operator(),
      });
    } catch (error) {
      const reason = revertReason(error);
      throw (reason !== undefined ? onRevert?.(reason) : undefined) ?? chainError(error, what);
    }
    let receipt: TransactionReceipt;
    try {
      receipt = await sender.send({ key: call.key, kind: call.kind, to: call.to, data: encodeFunctionData(call) });
    } catch (error) {
      throw chainError(error, what);
    }
    if (receipt.status !== "success") throw new Refusal("chain", `${what} reverted onchain (tx ${receipt.transactionHash})`);
    return receipt;
  }

  const enrollCall = (key: string, token: Address, creator: Address, split: Split): ContractCall => ({
    key,
    kind: "enroll",
    to: requireContract(config, "registry"),
    abi: [...registryAbi, ...knownErrorsAbi],
    functionName: "enroll",
    args: [token, creator, split.assetBps, split.perpBps, split.creatorBps, zeroHash],
  });

  const alreadyEnrolled = (token: Address) => (reason: string) =>
    reason.startsWith("AlreadyEnrolled") ? new Refusal("conflict", `token ${token} is already enrolled`) : undefined;

  async function read<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw chainError(error, what);
    }
  }

  return {
    async launch(request) {
      const launcher = requireContract(config, "launcher");
      const locker = requireContract(config, "lpLocker");
      const usdc = requireContract(config, "usdc");
      requireContract(config, "registry");
      const operator = await sender.operator();
      const creator = request.creator ? getAddress(request.creator) : operator;
      const id = request.idempotencyKey;
      const salt = id ? keccak256(toHex(`launch:${id}`)) : toHex(randomBytes(32));
      const key = `api:launch:${id ?? salt}`;
      const deployment = launchConfig({
        tokenAdmin: creator,
        name: request.name,
        symbol: request.symbol,
        image: request.image,
        metadata: request.description ? JSON.stringify({ description: request.description }) : "",
        context: JSON.stringify({ interface: "launchpad", platform: "api/v1" }),
        salt,
        chainId: config.chainId,
        pairedToken: usdc,
        locker,
        rewards: launchSplitRewards({ operator, creator, split: request.split }),
        startingMarketCap: LAUNCH_MARKET_CAP_USDC,
        fees: requireLaunchFees(config),
      });
      const deployed = await simulateAndSend(
        { key, kind: "launch", to: launcher, abi: [...clankerFactoryAbi, ...knownErrorsAbi], functionName: "deployToken", args: [deployment] },
        "deploy",
      );
      const created = parseTokenCreated(deployed, launcher);
      let enrolled: TransactionReceipt;
      try {
        enrolled = await simulateAndSend(enrollCall(`${key}:enroll`, created.token, creator, request.split), "enrolment", alreadyEnrolled(created.token));
      } catch (error) {
        const e = chainError(error, "enrolment");
        // The token exists: say so, so the caller can enrol it with POST /tokens/register.
        throw new Refusal(e.kind, `${e.message}; token ${created.token} was deployed (tx ${deployed.transactionHash}) but is not enrolled`);
      }
      return {
        token: created.token,
        txHash: deployed.transactionHash,
        poolId: created.poolId,
        enrollTxHash: enrolled.transactionHash,
        creator,
        split: withSplit(request.split),
      };
    },

    async register(request) {
      const launcher = requireContract(config, "launcher");
      const registry = requireContract(config, "registry");
      const locker = requireContract(config, "lpLocker");
      const token = getAddress(request.token);
      const operator = await sender.operator();
      const creator = request.creator ? getAddress(request.creator) : operator;
      const key = `api:register:${request.idempotencyKey ?? `${token}:${toHex(randomBytes(8))}`}`;
      const previous = await sender.previous(key);
      if (previous) return { token, txHash: previous.transactionHash, creator, split: withSplit(request.split) };

      if (config.protocolToken && token === getAddress(config.protocolToken)) {
        throw new Refusal("conflict", "the protocol token is not enrolled: it receives the tithe of enrolled tokens");
      }
      const [launched] = await read("launcher lookup", () =>
        publicClient.readContract({ address: launcher, abi: launcherViewsAbi, functionName: "deploymentInfoForToken", args: [token] }),
      );
      if (BigInt(launched) === 0n) throw new Refusal("not-found", `unknown token ${token}: not launched through the launcher`);
      const isEnrolled = await read("registry lookup", () =>
        publicClient.readContract({ address: registry, abi: registryAbi, functionName: "isEnrolled", args: [token] }),
      );
      if (isEnrolled) throw new Refusal("conflict", `token ${token} is already enrolled`);
      const rewards = await read("locker lookup", () =>
        publicClient.readContract({ address: locker, abi: clankerLpLockerAbi, functionName: "tokenRewards", args: [token] }),
      );
      if (!rewards.rewardRecipients.some((r) => getAddress(r) === operator)) {
        throw new Refusal("underfunded", `token ${token} does not pay LP rewards to the operator wallet ${operator}: nothing to split`);
      }
      // The split is enrolled only if the locker honours it exactly: the creator's direct slots,
      // nobody else paid directly, the operator's slots in FeeIn.Paired carrying the rest.
      const preferences = await read("locker lookup", () =>
        Promise.all(
          rewards.rewardRecipients.map((_, i) =>
            publicClient.readContract({ address: locker, abi: clankerLpLockerAbi, functionName: "feePreferences", args: [token, BigInt(i)] }),
          ),
        ),
      );
      const slots: RewardSlot[] = rewards.rewardRecipients.map((recipient, i) => ({
        rewardIndex: i,
        recipient: getAddress(recipient),
        admin: getAddress(rewards.rewardAdmins[i]!),
        bps: rewards.rewardBps[i]!,
        feeIn: preferences[i]!,
      }));
      const differences = splitDifferences(slots, { operator, creator, split: request.split });
      if (differences.length) throw new Refusal("underfunded", `token ${token}: the locker cannot honour the requested split: ${differences.join("; ")}`);
      const receipt = await simulateAndSend(enrollCall(key, token, creator, request.split), "enrolment", alreadyEnrolled(token));
      return { token, txHash: receipt.transactionHash, creator, split: withSplit(request.split) };
    },
  };
}
