/**
 * Replays the recorded behaviour of Clanker's own v4 contracts (`../shared/reference/clanker-v4-traces`,
 * format `clanker-v4-trace/1`, its README's "Replaying a trace") on the devnet's Clanker contracts and
 * reports what the devnet did in the recorded form, so a test can compare both exactly.
 *
 * - One deployment, prepared once and cached like the devnet's (`.cache/clanker-replay/`, keyed by
 *   `preparedKey()`): USDC and WETH stand-ins, Permit2 and Uniswap from npm, the devnet's launcher,
 *   lockers, both V2 hooks and the sniper auction, owned by the `clankerTeam` role (anvil account 1),
 *   who is also the launcher's team fee recipient. No token is launched. Each trace loads it into a
 *   fresh anvil (`startAnvil({ loadStateFile })`).
 * - Roles: operator, clankerTeam, stranger, sniper, creator, trader are anvil accounts 0..5.
 * - Each mined step gets the recorded base fee and timestamp (launch time + offset), is sent as a
 *   legacy transaction at the recorded gas price with the recorded gas limit (no estimation), and must
 *   land in launch block + offset; a revert's data is read with `debug_traceTransaction`. A call step
 *   is an `eth_call` against the latest block.
 * - What the devnet did is put in the recorded form: addresses as `$role`, the pool id as `$poolId`,
 *   the LP NFT id as `$positionId`, block numbers and times relative to the launch where the trace
 *   has them so. Logs are decoded with the project's ABIs (`common/abis`) and the standard ERC-20,
 *   ERC-721, ERC-6909 and Permit2 events.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type AbiParameter,
  type Address,
  type Hex,
  type PublicClient,
  concatHex,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  decodeEventLog,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  hexToBigInt,
  http,
  isAddress,
  numberToHex,
  parseAbi,
  parseAbiItem,
  toEventSelector,
  toHex,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { clankerFactoryAbi, clankerFeeLockerAbi, clankerLpLockerAbi, clankerTeamFeesAbi, feeInName } from "../common/abis/clanker.js";
import { clankerHookAbi, sniperAuctionAbi } from "../common/abis/clanker-hook.js";
import { knownErrorsAbi } from "../common/abis/errors.js";
import { poolManagerAbi } from "../common/abis/uniswap.js";
import {
  type DeploymentConfig,
  encodeDynamicPoolData,
  encodeLockerData,
  encodeMevModuleData,
  encodePoolData,
  type FeeInValue,
} from "../common/deploy-config.js";
import { LIQUIDITY_OFFSET, POOL_KEY_ABI, type PoolKey, decodeV4Slot0, poolIdOf, v4PoolStateSlot } from "../common/uniswap.js";
import { startAnvil, type AnvilHandle } from "./anvil.js";
import { ROOT, compileProject } from "./compile.js";
import { createDevnetContext, devnetChain } from "./context.js";
import { freePort } from "./ports.js";
import { preparedKey } from "./prepared.js";
import { devnetPrivateKey, deployClankerHooks, deployClankerLockers } from "./protocol.js";
import { writeFileAtomic } from "./state.js";
import { stripTraces } from "./traces.js";
import { deployUniswap } from "./uniswap.js";

/** The recorded traces, beside the project (as the other trace tests find them). */
export const TRACES_DIR = join(ROOT, "..", "shared", "reference", "clanker-v4-traces");
const CACHE_DIR = join(ROOT, ".cache", "clanker-replay");
const CHAIN_ID = 31337;

export type Value = string | boolean | null | Value[] | { [key: string]: Value };
export type RecordedLog = { emitter: string; event: string; signature: string; indexed?: string[]; args: Record<string, Value> };
export type Expect = {
  status: "success" | "revert";
  revert?: Record<string, Value>;
  logs?: RecordedLog[];
  balanceChanges?: Record<string, Record<string, string>>;
  swaps?: Record<string, string>[];
  state?: Record<string, Value>;
  returns?: Value;
};
export type Step = {
  index: number;
  label: string;
  blockOffset: number;
  timestampOffset: number;
  baseFeePerGas?: string;
  actor?: string;
  action: string;
  mines?: boolean;
  inputs?: Record<string, Value>;
  tx?: { type: "legacy"; gasPrice: string; gasLimit: string; value: string };
  expect: Expect;
};
export type Trace = {
  scenario: string;
  ordering: { tokenIsCurrency0: boolean };
  roles: Record<string, { type: "eoa" | "contract" }>;
  setup: Record<string, string>[];
  launch: { hookContract: string; deploymentConfig: Record<string, Record<string, Value>>; poolKey: Record<string, string> };
  steps: Step[];
};

export function loadTraces(dir = TRACES_DIR): Trace[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Trace);
}

/** The EOA roles, by anvil account index. */
export const REPLAY_ACCOUNTS = { operator: 0, clankerTeam: 1, stranger: 2, sniper: 3, creator: 4, trader: 5 } as const;
type Eoa = keyof typeof REPLAY_ACCOUNTS;

export type ReplayContracts = {
  usdc: Address;
  weth: Address;
  permit2: Address;
  poolManager: Address;
  positionManager: Address;
  universalRouter: Address;
  launcher: Address;
  lpLocker: Address;
  feeLocker: Address;
  staticHook: Address;
  dynamicHook: Address;
  mevModule: Address;
};

/** The replay's deployment on a fresh anvil, from the clankerTeam account. */
async function deployReplayContracts(rpcUrl: string): Promise<ReplayContracts> {
  const ctx = createDevnetContext(rpcUrl, CHAIN_ID, devnetPrivateKey(REPLAY_ACCOUNTS.clankerTeam));
  const artifacts = compileProject();
  const usdc = await ctx.deploy(artifacts.DevnetUSDC!);
  const weth = await ctx.deploy(artifacts.WETH9!);
  const uni = await deployUniswap(ctx, { usdc, weth });
  const core = await deployClankerLockers(ctx, uni);
  const hooks = await deployClankerHooks(ctx, { v4PoolManager: uni.v4PoolManager, weth }, core);
  return {
    usdc,
    weth,
    permit2: uni.permit2,
    poolManager: uni.v4PoolManager,
    positionManager: uni.v4PositionManager,
    universalRouter: uni.universalRouter,
    ...core,
    staticHook: hooks.clankerHook,
    dynamicHook: hooks.clankerDynamicHook,
    mevModule: hooks.mevModule,
  };
}

/** The replay's deployment: from the cache when it holds this source's, else deployed now and saved. */
export async function preparedReplay(): Promise<{ stateFile: string; contracts: ReplayContracts }> {
  const dir = join(CACHE_DIR, `replay-${preparedKey()}`);
  const stateFile = join(dir, "state.json");
  const contractsFile = join(dir, "contracts.json");
  if (existsSync(join(dir, "meta.json"))) return { stateFile, contracts: JSON.parse(readFileSync(contractsFile, "utf8")) as ReplayContracts };
  mkdirSync(CACHE_DIR, { recursive: true });
  for (const old of readdirSync(CACHE_DIR))
    if (!old.endsWith(".tmp") && old !== `replay-${preparedKey()}`) rmSync(join(CACHE_DIR, old), { recursive: true, force: true });
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const anvil = await startAnvil({ port: await freePort(), chainId: CHAIN_ID });
  try {
    const contracts = await deployReplayContracts(anvil.rpcUrl);
    await writeFileAtomic(join(tmp, "state.json"), await anvil.dumpState(), { gunzip: true, tag: "prepare", transform: stripTraces });
    writeFileSync(join(tmp, "contracts.json"), `${JSON.stringify(contracts, null, 2)}\n`);
    writeFileSync(join(tmp, "meta.json"), "{}\n");
    try {
      renameSync(tmp, dir);
    } catch (error) {
      if (!existsSync(join(dir, "meta.json"))) throw error;
      rmSync(tmp, { recursive: true, force: true });
    }
    return { stateFile, contracts };
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  } finally {
    await anvil.stop();
  }
}

/** Events beside the project's Clanker ABIs that the traces record: ERC-20, ERC-721, ERC-6909, Permit2. */
const STANDARD_EVENTS = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed id)",
  "event Transfer(address caller, address indexed from, address indexed to, uint256 indexed id, uint256 amount)",
  "event Approval(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration)",
]);
/**
 * The real dynamic-fee hook's own events, which the service does not read: its `PoolInitialized` (the fee
 * curve; another layout and topic0 than the static hook's) and its per-swap estimate of the tick a swap moves to.
 */
const DYNAMIC_HOOK_EVENTS = parseAbi([
  "event PoolInitialized(bytes32 poolId, uint24 baseFee, uint24 maxLpFee, uint256 referenceTickFilterPeriod, uint256 resetPeriod, int24 resetTickFilter, uint256 feeControlNumerator, uint24 decayFilterBps)",
  "event EstimatedTickDifference(int24 beforeTick, int24 afterTick)",
]);
/** Every event the replay decodes: the project's ABIs first. */
const EVENT_ABIS: AbiEvent[] = [
  clankerFactoryAbi,
  clankerTeamFeesAbi,
  clankerLpLockerAbi,
  clankerFeeLockerAbi,
  clankerHookAbi,
  DYNAMIC_HOOK_EVENTS,
  sniperAuctionAbi,
  poolManagerAbi,
  STANDARD_EVENTS,
].flatMap((abi) => (abi as Abi).filter((item): item is AbiEvent => item.type === "event"));

/** Errors the traces record beside the project's: Uniswap v4's. */
const ERRORS = [
  ...knownErrorsAbi,
  ...parseAbi(["error HookCallFailed()", "error ManagerLocked()", "error NotFound()", "error InvalidHook()", "error TokenNotFound()"]),
] as Abi;

const signatureOf = (e: AbiEvent) => `${e.name}(${e.inputs.map(formatType).join(",")})`;
function formatType(p: AbiParameter): string {
  if (p.type.startsWith("tuple")) {
    const components = (p as { components: readonly AbiParameter[] }).components;
    return `(${components.map(formatType).join(",")})${p.type.slice(5)}`;
  }
  return p.type;
}

/** A log of the devnet in the recorded form (`args` by the ABI's names, unnamed ones as `_<i>`). */
export type ObservedLog = RecordedLog & { decoded: boolean };

/** The context a value's recorded form needs: roles, the pool id, the position id, the launch block and time. */
type Place = { roles: Map<string, string>; poolId?: Hex; positionId?: bigint; launchBlock?: bigint; launchTime?: bigint };

/** `$role` of an address, or the address (zero stays literal, lowercase). */
function addressForm(place: Place, a: string): string {
  return place.roles.get(a.toLowerCase()) ?? a.toLowerCase();
}

/**
 * A value the devnet produced, in the recorded form. `hint` is the recorded value at the same place:
 * it only picks the representation (`$launchBlock+N`, `$positionId`, an ERC-6909 id as its currency's
 * role); the number itself is the devnet's.
 */
export function recordedForm(place: Place, value: unknown, hint?: Value): Value {
  if (Array.isArray(value)) return value.map((v, i) => recordedForm(place, v, Array.isArray(hint) ? hint[i] : undefined));
  if (value !== null && typeof value === "object") {
    const out: Record<string, Value> = {};
    for (const [k, v] of Object.entries(value)) out[k] = recordedForm(place, v, hint && typeof hint === "object" && !Array.isArray(hint) ? hint[k] : undefined);
    return out;
  }
  if (typeof value === "boolean" || value === null || value === undefined) return (value ?? null) as Value;
  if (typeof value === "bigint" || typeof value === "number") {
    const n = BigInt(value);
    if (typeof hint === "string" && hint.startsWith("$")) {
      if (hint.startsWith("$launchBlock+") && place.launchBlock !== undefined) return `$launchBlock+${n - place.launchBlock}`;
      if (hint.startsWith("$launchTime+") && place.launchTime !== undefined) return `$launchTime+${n - place.launchTime}`;
      if (hint === "$positionId" && n === place.positionId) return "$positionId";
      if (n > 0n && n < 1n << 160n) return addressForm(place, getAddress(numberToHex(n, { size: 20 })));
    }
    return n.toString();
  }
  if (typeof value === "string") {
    if (isAddress(value, { strict: false })) return addressForm(place, value);
    if (/^0x[0-9a-fA-F]{64}$/.test(value)) {
      if (place.poolId && value.toLowerCase() === place.poolId.toLowerCase()) return "$poolId";
      if (hint === "$positionId" && place.positionId !== undefined && BigInt(value) === place.positionId) return "$positionId";
    }
    return value;
  }
  return String(value);
}

/** Decodes a devnet log with the event ABIs (the first that decodes strictly). */
function decodeLog(place: Place, log: { address: Address; topics: Hex[]; data: Hex }, hint?: RecordedLog): ObservedLog {
  const emitter = addressForm(place, log.address);
  for (const event of EVENT_ABIS) {
    if (toEventSelector(event) !== log.topics[0]) continue;
    if (event.inputs.filter((i) => i.indexed).length !== log.topics.length - 1) continue;
    try {
      const decoded = decodeEventLog({ abi: [event], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true });
      const raw = decoded.args as unknown as Record<string, unknown> | unknown[];
      const args: Record<string, Value> = {};
      // The recorded log at the same place guides the representation only when it is the same event.
      const hintValues = hint && hint.signature === signatureOf(event) && hint.emitter === emitter ? Object.values(hint.args) : [];
      event.inputs.forEach((input, i) => {
        const v = Array.isArray(raw) ? raw[i] : (raw as Record<string, unknown>)[input.name ?? ""];
        args[input.name || `_${i}`] = recordedForm(place, v, hintValues[i]);
      });
      const indexed = event.inputs.flatMap((input, i) => (input.indexed ? [input.name || `_${i}`] : []));
      return { emitter, event: event.name, signature: signatureOf(event), ...(indexed.length ? { indexed } : {}), args, decoded: true };
    } catch {
      // another layout of the same topic0
    }
  }
  return { emitter, event: "(undecoded)", signature: log.topics[0] ?? "(anonymous)", args: { topics: log.topics, data: log.data }, decoded: false };
}

/** A revert's data in the recorded form: `{data: "0x"}` when empty, else `{selector, error, args?}` (WrappedError's reason/details decoded alike). */
export function revertForm(place: Place, data: Hex): Record<string, Value> {
  if (data === "0x" || data.length < 10) return { data };
  const selector = data.slice(0, 10);
  try {
    const decoded = decodeErrorResult({ abi: ERRORS, data });
    const args = (decoded.args ?? []) as unknown[];
    if (decoded.errorName === "WrappedError") {
      return {
        selector,
        error: "WrappedError",
        args: {
          target: addressForm(place, args[0] as Address),
          selector: args[1] as Hex,
          reason: revertForm(place, args[2] as Hex),
          details: revertForm(place, args[3] as Hex),
        },
      };
    }
    if (decoded.errorName === "Panic") return { selector, error: "Panic", args: { reason: String(args[0]) } };
    const inputs = decoded.abiItem && "inputs" in decoded.abiItem ? decoded.abiItem.inputs : [];
    if (!inputs.length) return { selector, error: decoded.errorName };
    const out: Record<string, Value> = {};
    inputs.forEach((input, i) => {
      out[input.name || `_${i}`] = recordedForm(place, args[i]);
    });
    return { selector, error: decoded.errorName, args: out };
  } catch {
    return { selector, error: "(unknown)", data };
  }
}

/** What the devnet did in one step, in the recorded form (only the parts the recorded step has). */
export type Observed = {
  blockOffset: number;
  status: "success" | "revert";
  revert?: Record<string, Value>;
  logs?: ObservedLog[];
  balanceChanges?: Record<string, Record<string, string>>;
  swaps?: Record<string, string>[];
  state?: Record<string, Value>;
  returns?: Value;
};

const routerAbi = parseAbi(["function execute(bytes commands, bytes[] inputs, uint256 deadline) payable"]);
const mintAbi = parseAbi(["function mint(address to, uint256 amount)", "function deposit() payable"]);
const permit2Abi = parseAbi(["function approve(address token, address spender, uint160 amount, uint48 expiration)"]);
const viewsAbi = parseAbi([
  "function extsload(bytes32 slot) view returns (bytes32)",
  "function balanceOf(address owner, uint256 id) view returns (uint256)",
  "function protocolFee() view returns (uint24)",
  "function mevModuleEnabled(bytes32 poolId) view returns (bool)",
]);
const dynamicViewsAbi = parseAbi([
  "struct PoolDynamicFeeVars { int24 referenceTick; int24 resetTick; uint256 resetTickTimestamp; uint256 lastSwapTimestamp; uint256 appliedVR; uint256 prevVA; }",
  "function poolFeeVars(bytes32 poolId) view returns (PoolDynamicFeeVars)",
]);

/** Why a view could not be read on the devnet (it lacks it): the state field's value then. */
export const UNAVAILABLE = "(no such view on the devnet)";

/** One trace replayed on its own anvil. */
export class ReplaySession {
  private readonly place: Place;
  private readonly roleAddress = new Map<string, Address>();
  private key?: PoolKey;
  private token?: Address;
  private readonly client: PublicClient;

  private constructor(
    readonly trace: Trace,
    private readonly anvil: AnvilHandle,
    readonly contracts: ReplayContracts,
  ) {
    this.client = createPublicClient({
      chain: devnetChain(CHAIN_ID, anvil.rpcUrl),
      transport: http(anvil.rpcUrl, { batch: true, retryCount: 0 }),
      cacheTime: 0,
    }) as PublicClient;
    this.place = { roles: new Map() };
    const hook = trace.launch.hookContract === "ClankerHookDynamicFeeV2" ? contracts.dynamicHook : contracts.staticHook;
    const contractRoles: Record<string, Address> = {
      launcher: contracts.launcher,
      lpLocker: contracts.lpLocker,
      feeLocker: contracts.feeLocker,
      hook,
      mevModule: contracts.mevModule,
      poolManager: contracts.poolManager,
      positionManager: contracts.positionManager,
      universalRouter: contracts.universalRouter,
      permit2: contracts.permit2,
      usdc: contracts.usdc,
      weth: contracts.weth,
    };
    for (const [role, i] of Object.entries(REPLAY_ACCOUNTS)) this.setRole(role, privateKeyToAccount(devnetPrivateKey(i)).address);
    for (const [role, address] of Object.entries(contractRoles)) this.setRole(role, address);
  }

  private setRole(role: string, address: Address) {
    this.roleAddress.set(role, address);
    this.place.roles.set(address.toLowerCase(), `$${role}`);
  }

  static async start(trace: Trace, prepared: { stateFile: string; contracts: ReplayContracts }): Promise<ReplaySession> {
    const anvil = await startAnvil({ port: await freePort(), chainId: CHAIN_ID, loadStateFile: prepared.stateFile });
    const session = new ReplaySession(trace, anvil, prepared.contracts);
    try {
      await session.runSetup();
    } catch (error) {
      await anvil.stop();
      throw error;
    }
    return session;
  }

  async stop(): Promise<void> {
    await this.anvil.stop();
  }

  private rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    return this.client.request({ method, params } as never) as Promise<T>;
  }

  /** `$role` (or a literal) as a value of ABI type `type`. */
  private resolve(value: Value, type: string): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v, type.slice(0, type.lastIndexOf("["))));
    if (typeof value === "string" && value.startsWith("$")) {
      if (value === "$poolId") return poolIdOf(this.key!);
      const address = value === "$token" ? this.token : this.roleAddress.get(value.slice(1));
      if (!address) throw new Error(`no role ${value}`);
      return type.startsWith("uint") ? hexToBigInt(address) : address;
    }
    if (typeof value === "string" && /^u?int/.test(type)) return BigInt(value);
    return value;
  }

  private resolveArgs(fn: AbiFunction, args: Value[]): unknown[] {
    return fn.inputs.map((input, i) => {
      if (input.type === "tuple") {
        const components = (input as { components: readonly AbiParameter[] }).components;
        const v = args[i] as Record<string, Value>;
        return Object.fromEntries(components.map((c) => [c.name!, this.resolve(v[c.name!]!, c.type)]));
      }
      return this.resolve(args[i]!, input.type);
    });
  }

  private wallet(actor: string) {
    const index = REPLAY_ACCOUNTS[actor as Eoa];
    if (index === undefined) throw new Error(`unknown actor ${actor}`);
    return createDevnetContext(this.anvil.rpcUrl, CHAIN_ID, devnetPrivateKey(index));
  }

  private async runSetup(): Promise<void> {
    const c = this.contracts;
    for (const s of this.trace.setup) {
      const address = (v: string) => this.resolve(v, "address") as Address;
      if (s.action === "mint") await this.wallet("clankerTeam").write(address(s.token!), mintAbi as Abi, "mint", [address(s.to!), BigInt(s.amount!)]);
      else if (s.action === "erc20Approve") await this.wallet(s.actor!).write(address(s.token!), erc20Abi, "approve", [address(s.spender!), BigInt(s.amount!)]);
      else if (s.action === "permit2Approve")
        await this.wallet(s.actor!).write(c.permit2, permit2Abi, "approve", [address(s.token!), address(s.spender!), BigInt(s.amount!), BigInt(s.expiration!)]);
      else if (s.action === "wrapEth") await this.wallet(s.actor!).write(c.weth, mintAbi as Abi, "deposit", [], BigInt(s.amount!));
      else throw new Error(`unknown setup action ${s.action}`);
    }
  }

  /** deployToken's argument from the recorded `launch.deploymentConfig`, with `salt`. */
  private deploymentConfig(salt: Hex): DeploymentConfig {
    const d = this.trace.launch.deploymentConfig as Record<string, Record<string, Value>>;
    const a = (v: Value) => this.resolve(v, "address") as Address;
    const t = d.tokenConfig!;
    const p = d.poolConfig!;
    const l = d.lockerConfig!;
    const m = d.mevModuleConfig!;
    const poolData = p.poolData as Record<string, Value>;
    const fee = poolData.feeData as Record<string, string>;
    const n = (v: Value) => Number(v as string);
    const poolDataHex =
      fee.clankerFee !== undefined
        ? encodePoolData(n(fee.clankerFee), n(fee.pairedFee!))
        : encodeDynamicPoolData({
            baseFee: n(fee.baseFee!),
            maxLpFee: n(fee.maxLpFee!),
            referenceTickFilterPeriod: n(fee.referenceTickFilterPeriod!),
            resetPeriod: n(fee.resetPeriod!),
            resetTickFilter: n(fee.resetTickFilter!),
            feeControlNumerator: BigInt(fee.feeControlNumerator!),
            decayFilterBps: n(fee.decayFilterBps!),
          });
    const prefs = ((l.lockerData as Record<string, Value>).feePreference as string[]).map((s) => Number.parseInt(s, 10) as FeeInValue);
    const mev = m.mevModuleData as Record<string, string>;
    return {
      tokenConfig: {
        tokenAdmin: a(t.tokenAdmin!),
        name: t.name as string,
        symbol: t.symbol as string,
        salt,
        image: t.image as string,
        metadata: t.metadata as string,
        context: t.context as string,
        originatingChainId: BigInt(t.originatingChainId as string),
      },
      poolConfig: {
        hook: a(p.hook!),
        pairedToken: a(p.pairedToken!),
        tickIfToken0IsClanker: n(p.tickIfToken0IsClanker!),
        tickSpacing: n(p.tickSpacing!),
        poolData: poolDataHex,
      },
      lockerConfig: {
        locker: a(l.locker!),
        rewardAdmins: (l.rewardAdmins as string[]).map(a),
        rewardRecipients: (l.rewardRecipients as string[]).map(a),
        rewardBps: (l.rewardBps as string[]).map(Number),
        tickLower: (l.tickLower as string[]).map(Number),
        tickUpper: (l.tickUpper as string[]).map(Number),
        positionBps: (l.positionBps as string[]).map(Number),
        lockerData: encodeLockerData(prefs),
      },
      mevModuleConfig: {
        mevModule: a(m.mevModule!),
        mevModuleData: encodeMevModuleData(n(mev.startingFee!), n(mev.endingFee!), n(mev.secondsToDecay!)),
      },
      extensionConfigs: [],
    };
  }

  /** A salt whose token address orders as the trace's (`ordering.tokenIsCurrency0`), by simulating deployToken. */
  private async saltForOrdering(from: Address): Promise<{ salt: Hex; token: Address }> {
    for (let i = 0; i < 64; i++) {
      const salt = toHex(i, { size: 32 });
      const { result } = await this.client.simulateContract({
        account: from,
        address: this.contracts.launcher,
        abi: clankerFactoryAbi,
        functionName: "deployToken",
        args: [this.deploymentConfig(salt)],
      });
      const token = result as Address;
      if (BigInt(token) < BigInt(this.contracts.usdc) === this.trace.ordering.tokenIsCurrency0) return { salt, token };
    }
    throw new Error("no salt in 64 gives the recorded ordering");
  }

  private get actors(): string[] {
    return [...this.roleAddress.keys()];
  }

  /** Every role's usdc/weth/token/eth at `block`. */
  private async balances(block: bigint): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    const assets: [string, Address | undefined][] = [
      ["usdc", this.contracts.usdc],
      ["weth", this.contracts.weth],
      ["token", this.token],
    ];
    const reads: Promise<void>[] = [];
    for (const role of this.actors) {
      const holder = this.roleAddress.get(role)!;
      for (const [name, asset] of assets) {
        if (!asset) continue;
        reads.push(
          this.client
            .readContract({ address: asset, abi: erc20Abi, functionName: "balanceOf", args: [holder], blockNumber: block })
            .then((v) => void out.set(`${role} ${name}`, v))
            .catch(() => void out.set(`${role} ${name}`, 0n)),
        );
      }
      reads.push(this.client.getBalance({ address: holder, blockNumber: block }).then((v) => void out.set(`${role} eth`, v)));
    }
    await Promise.all(reads);
    return out;
  }

  /** Each role's nonzero changes between two reads of `balances`; the sender's gas is not counted. */
  private balanceChanges(before: Map<string, bigint>, after: Map<string, bigint>, sender?: { role: string; gas: bigint }) {
    const changes: Record<string, Record<string, string>> = {};
    for (const role of this.actors) {
      for (const asset of ["usdc", "weth", "token", "eth"]) {
        let delta = (after.get(`${role} ${asset}`) ?? 0n) - (before.get(`${role} ${asset}`) ?? 0n);
        if (asset === "eth" && role === sender?.role) delta += sender.gas;
        if (delta !== 0n) (changes[`$${role}`] ??= {})[asset] = delta.toString();
      }
    }
    return changes;
  }

  /** The state the trace reads at `block`, in its form, for the sections `hint` has. */
  private async readState(block: bigint, hint: Record<string, Value>): Promise<Record<string, Value>> {
    const state: Record<string, unknown> = {};
    const poolId = poolIdOf(this.key!);
    const hook = this.roleAddress.get("hook")!;
    const c = this.contracts;
    const read = (address: Address, abi: Abi, functionName: string, args: unknown[] = []) =>
      this.client.readContract({ address, abi, functionName, args, blockNumber: block } as never) as Promise<unknown>;
    const maybe = (p: Promise<unknown>) => p.catch(() => UNAVAILABLE);
    if (hint.pool) {
      const slot = v4PoolStateSlot(this.key!);
      const liquiditySlot = numberToHex(hexToBigInt(slot) + LIQUIDITY_OFFSET, { size: 32 });
      const [slot0, liquidity] = (await Promise.all([
        read(c.poolManager, viewsAbi, "extsload", [slot]),
        read(c.poolManager, viewsAbi, "extsload", [liquiditySlot]),
      ])) as [Hex, Hex];
      state.pool = { ...decodeV4Slot0(slot0), liquidity: hexToBigInt(liquidity) & ((1n << 128n) - 1n) };
    }
    if (hint.hook) {
      const h = hint.hook as Record<string, Value>;
      const [protocolFee, mevModuleEnabled, pairedClaims, poolFeeVars] = await Promise.all([
        maybe(read(hook, viewsAbi, "protocolFee")),
        maybe(read(hook, viewsAbi, "mevModuleEnabled", [poolId])),
        read(c.poolManager, viewsAbi, "balanceOf", [hook, hexToBigInt(c.usdc)]),
        h.poolFeeVars ? maybe(read(hook, dynamicViewsAbi, "poolFeeVars", [poolId])) : undefined,
      ]);
      state.hook = { protocolFee, mevModuleEnabled, pairedClaims, ...(h.poolFeeVars ? { poolFeeVars } : {}) };
    }
    if (hint.mevModule) {
      const m = c.mevModule;
      const [round, nextAuctionBlock, gasPeg, poolDecayStartTime, getFee] = await Promise.all(
        ["round", "nextAuctionBlock", "gasPeg", "poolDecayStartTime", "getFee"].map((fn) => maybe(read(m, sniperAuctionAbi, fn, [poolId]))),
      );
      state.mevModule = { round, nextAuctionBlock, gasPeg, poolDecayStartTime, getFee };
    }
    if (hint.feeLockerAvailableFees) {
      const fees: Record<string, Record<string, bigint>> = {};
      const assets: [string, Address][] = [
        ["usdc", c.usdc],
        ["weth", c.weth],
        ["token", this.token!],
      ];
      await Promise.all(
        Object.keys(REPLAY_ACCOUNTS).flatMap((role) =>
          assets.map(async ([name, asset]) => {
            const v = (await read(c.feeLocker, clankerFeeLockerAbi, "availableFees", [this.roleAddress.get(role)!, asset])) as bigint;
            if (v !== 0n) (fees[`$${role}`] ??= {})[name] = v;
          }),
        ),
      );
      // The recorded order: roles as the trace lists them, then usdc, weth, token.
      const ordered: Record<string, Record<string, bigint>> = {};
      for (const role of Object.keys(REPLAY_ACCOUNTS)) {
        const f = fees[`$${role}`];
        if (f) ordered[`$${role}`] = Object.fromEntries(["usdc", "weth", "token"].filter((k) => k in f).map((k) => [k, f[k]!]));
      }
      state.feeLockerAvailableFees = ordered;
    }
    if (hint.rewards) {
      const info = (await read(c.lpLocker, clankerLpLockerAbi, "tokenRewards", [this.token!])) as {
        rewardBps: readonly number[];
        rewardAdmins: readonly Address[];
        rewardRecipients: readonly Address[];
      };
      const prefs = await Promise.all(
        info.rewardBps.map((_, i) => read(c.lpLocker, clankerLpLockerAbi, "feePreferences", [this.token!, BigInt(i)]) as Promise<number>),
      );
      state.rewards = {
        rewardBps: info.rewardBps,
        rewardAdmins: info.rewardAdmins,
        rewardRecipients: info.rewardRecipients,
        feePreferences: prefs.map((p) => feeInName(p)),
      };
    }
    return recordedForm(this.place, state, hint as Value) as Record<string, Value>;
  }

  /** The swap action's router calldata (README "Actions"). */
  private swapCalldata(inputs: Record<string, Value>): Hex {
    const exactIn = inputs.kind === "exactIn";
    const hookData =
      typeof inputs.hookData === "string"
        ? (inputs.hookData as Hex)
        : encodeAbiParameters(
            [
              {
                type: "tuple",
                components: [
                  { name: "mevModuleSwapData", type: "bytes" },
                  { name: "poolExtensionSwapData", type: "bytes" },
                ],
              },
            ],
            [
              {
                mevModuleSwapData: encodeAbiParameters(
                  [{ type: "address" }],
                  [this.resolve(((inputs.hookData as Record<string, Value>).mevModuleSwapData as Record<string, Value>).payee!, "address") as Address],
                ),
                poolExtensionSwapData: (inputs.hookData as Record<string, Value>).poolExtensionSwapData as Hex,
              },
            ],
          );
    const amount = BigInt((exactIn ? inputs.amountIn : inputs.amountOut) as string);
    const limit = BigInt((exactIn ? inputs.amountOutMinimum : inputs.amountInMaximum) as string);
    const swap = encodeAbiParameters(
      [
        {
          type: "tuple",
          components: [
            POOL_KEY_TUPLE_PARAM,
            { name: "zeroForOne", type: "bool" },
            { name: "amount", type: "uint128" },
            { name: "limit", type: "uint128" },
            { name: "hookData", type: "bytes" },
          ],
        },
      ],
      [{ poolKey: this.key!, zeroForOne: inputs.zeroForOne as boolean, amount, limit, hookData }],
    );
    const tokenIn = this.resolve(inputs.tokenIn!, "address") as Address;
    const tokenOut = this.resolve(inputs.tokenOut!, "address") as Address;
    const settle = encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [tokenIn, exactIn ? amount : limit]);
    const take = encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [tokenOut, exactIn ? limit : amount]);
    const actions = concatHex([toHex(exactIn ? 0x06 : 0x08, { size: 1 }), "0x0c", "0x0f"]);
    const input = encodeAbiParameters([{ type: "bytes" }, { type: "bytes[]" }], [actions, [swap, settle, take]]);
    return encodeFunctionData({ abi: routerAbi, functionName: "execute", args: ["0x10", [input], BigInt(inputs.deadline as string)] });
  }

  /** A step's transaction: target and calldata. */
  private stepCall(step: Step): { to: Address; data: Hex; fn?: AbiFunction } {
    const inputs = step.inputs ?? {};
    if (step.action === "deployToken") throw new Error("deployToken is built elsewhere");
    if (step.action === "swapExactIn" || step.action === "swapExactOut" || step.action === "auctionBid")
      return { to: this.contracts.universalRouter, data: this.swapCalldata(inputs) };
    const fn = parseAbiItem(`function ${inputs.function as string}`) as AbiFunction;
    const to = this.resolve(inputs.to!, "address") as Address;
    return { to, data: encodeFunctionData({ abi: [fn], functionName: fn.name, args: this.resolveArgs(fn, inputs.args as Value[]) }), fn };
  }

  /** The block the chain is at now. */
  private async head(): Promise<{ number: bigint; timestamp: bigint }> {
    const b = await this.client.getBlock({ blockTag: "latest" });
    return { number: b.number, timestamp: b.timestamp };
  }

  /** Replays one step and returns what the devnet did, in the recorded form. */
  async runStep(step: Step): Promise<Observed> {
    if (step.mines === false) return this.runCall(step);
    if (step.baseFeePerGas !== undefined) await this.rpc("anvil_setNextBlockBaseFeePerGas", [numberToHex(BigInt(step.baseFeePerGas))]);
    if (step.index > 0) await this.rpc("evm_setNextBlockTimestamp", [numberToHex(this.place.launchTime! + BigInt(step.timestampOffset))]);
    if (step.action === "mine") {
      const before = await this.balances((await this.head()).number);
      await this.rpc("evm_mine", []);
      const head = await this.head();
      return {
        blockOffset: Number(head.number - this.place.launchBlock!),
        status: "success",
        balanceChanges: this.balanceChanges(before, await this.balances(head.number)),
        ...(step.expect.state ? { state: await this.readState(head.number, step.expect.state) } : {}),
      };
    }
    const actor = step.actor!;
    const account = privateKeyToAccount(devnetPrivateKey(REPLAY_ACCOUNTS[actor as Eoa]));
    let to: Address;
    let data: Hex;
    let fn: AbiFunction | undefined;
    if (step.action === "deployToken") {
      const { salt, token } = await this.saltForOrdering(account.address);
      this.token = token;
      this.setRole("token", token);
      const config = this.deploymentConfig(salt);
      to = this.contracts.launcher;
      data = encodeFunctionData({ abi: clankerFactoryAbi, functionName: "deployToken", args: [config] });
    } else ({ to, data, fn } = this.stepCall(step));
    const wallet = createWalletClient({ chain: devnetChain(CHAIN_ID, this.anvil.rpcUrl), transport: http(this.anvil.rpcUrl, { retryCount: 0 }), account });
    const before = await this.head();
    const balancesBefore = await this.balances(before.number);
    const hash = await wallet.sendTransaction({
      to,
      data,
      type: "legacy",
      gasPrice: BigInt(step.tx!.gasPrice),
      gas: BigInt(step.tx!.gasLimit),
      value: BigInt(step.tx!.value),
      chain: wallet.chain,
    } as never);
    const receipt = await this.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (step.action === "deployToken") {
      const block = await this.client.getBlock({ blockNumber: receipt.blockNumber });
      this.place.launchBlock = receipt.blockNumber;
      this.place.launchTime = block.timestamp;
      const created = receipt.logs.find((l) => l.address.toLowerCase() === this.contracts.launcher.toLowerCase());
      if (!created || receipt.status !== "success") throw new Error("deployToken failed on the devnet: nothing to replay");
      const decoded = decodeEventLog({ abi: clankerFactoryAbi, topics: created.topics, data: created.data, strict: false });
      const args = decoded.args as unknown as { poolHook: Address; pairedToken: Address };
      const [c0, c1] = BigInt(this.token!) < BigInt(args.pairedToken) ? [this.token!, args.pairedToken] : [args.pairedToken, this.token!];
      this.key = { currency0: c0, currency1: c1, fee: 0x800000, tickSpacing: Number(this.trace.launch.poolKey.tickSpacing), hooks: args.poolHook };
      this.place.poolId = poolIdOf(this.key);
      const nft = receipt.logs.find((l) => l.address.toLowerCase() === this.contracts.positionManager.toLowerCase() && l.topics.length === 4);
      if (nft) this.place.positionId = hexToBigInt(nft.topics[3]!);
    }
    const observed: Observed = {
      blockOffset: Number(receipt.blockNumber - this.place.launchBlock!),
      status: receipt.status === "success" ? "success" : "revert",
    };
    if (receipt.status !== "success") {
      const trace = await this.rpc<{ output?: Hex }>("debug_traceTransaction", [hash, { tracer: "callTracer" }]);
      observed.revert = revertForm(this.place, trace.output ?? "0x");
    }
    const hints = step.expect.logs ?? [];
    observed.logs = receipt.logs.map((log, i) => decodeLog(this.place, log, hints[i]));
    observed.balanceChanges = this.balanceChanges(balancesBefore, await this.balances(receipt.blockNumber), {
      role: actor,
      gas: receipt.gasUsed * receipt.effectiveGasPrice,
    });
    observed.swaps = this.swaps(step, observed.logs);
    if (step.expect.state) observed.state = await this.readState(receipt.blockNumber, step.expect.state);
    if (fn && "returns" in step.expect) observed.returns = null;
    return observed;
  }

  /** `swaps` derived from the logs as the README says. */
  private swaps(step: Step, logs: ObservedLog[]): Record<string, string>[] {
    const swapIdx = logs.flatMap((l, i) => (l.emitter === "$poolManager" && l.event === "Swap" && l.args.id === "$poolId" ? [i] : []));
    const mints = logs.flatMap((l, i) =>
      l.emitter === "$poolManager" && l.event === "Transfer" && l.args.from === zeroAddress && l.args.to === "$hook" ? [i] : [],
    );
    const used = new Set<number>();
    const isSwapStep = ["swapExactIn", "swapExactOut", "auctionBid"].includes(step.action);
    const usdcIs0 = this.key!.currency0.toLowerCase() === this.contracts.usdc.toLowerCase();
    return swapIdx.map((at, k) => {
      const a = logs[at]!.args as Record<string, string>;
      const isStep = isSwapStep && k === swapIdx.length - 1;
      const usdcAmount = BigInt(usdcIs0 ? a.amount0! : a.amount1!);
      const direction = usdcAmount < 0n ? "buy" : "sell";
      const kind = isStep ? (step.inputs!.kind as string) : "exactIn";
      const takenIn = (direction === "buy" && kind === "exactIn") || (direction === "sell" && kind === "exactOut") ? "beforeSwap" : "afterSwap";
      const mint =
        takenIn === "beforeSwap"
          ? [...mints].reverse().find((m) => m < at && !used.has(m))
          : mints.find((m) => m > at && !used.has(m) && (swapIdx[k + 1] === undefined || m < swapIdx[k + 1]!));
      if (mint !== undefined) used.add(mint);
      return {
        swap: isStep ? "step" : "nested",
        sender: a.sender!,
        direction,
        kind,
        amount0: a.amount0!,
        amount1: a.amount1!,
        lpFee: a.fee!,
        protocolFee: mint === undefined ? "0" : (logs[mint]!.args.amount as string),
        protocolFeePaidIn: "$usdc",
        protocolFeeTakenIn: takenIn,
        tick: a.tick!,
      };
    });
  }

  /** An eth_call step. */
  private async runCall(step: Step): Promise<Observed> {
    const { to, data, fn } = this.stepCall(step);
    const from = this.roleAddress.get(step.actor!)!;
    const head = await this.head();
    const res = await fetch(this.anvil.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ from, to, data }, "latest"] }),
    });
    const body = (await res.json()) as { result?: Hex; error?: { message: string; data?: Hex } };
    const observed: Observed = { blockOffset: Number(head.number - this.place.launchBlock!), status: body.error ? "revert" : "success" };
    if (body.error) observed.revert = revertForm(this.place, (body.error.data ?? "0x") as Hex);
    else if (fn) {
      if (!fn.outputs.length) observed.returns = null;
      else {
        const decoded = decodeFunctionResult({ abi: [fn], functionName: fn.name, data: body.result! });
        observed.returns = recordedForm(this.place, decoded as unknown, step.expect.returns ?? undefined);
      }
    }
    return observed;
  }
}

const POOL_KEY_TUPLE_PARAM = { name: "poolKey", ...POOL_KEY_ABI } as const;
