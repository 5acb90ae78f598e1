/**
 * The recorded behaviour of Clanker's own v4 contracts (../shared/reference/clanker-v4-traces)
 * against what the project reads and assumes of the factory, the LP locker, the fee locker and the
 * hook's protocol fee:
 *
 * - every recorded log of those contracts' events decodes with the project's own ABIs
 *   (common/abis) into the recorded arguments: each log is rebuilt as the real contract emitted it
 *   (topic0 from its recorded signature, its recorded `indexed` arguments as topics, the rest as
 *   data), roles and hashes given stand-in values;
 * - every recorded swap's protocol fee is the one production's maths gives (tests' protocol-fee.ts),
 *   to the base unit, and the hook's claims are what those fees add up to since its last payout
 *   (`ClaimProtocolFees` in the paired token, at the start of a later swap).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  type Abi,
  type AbiEvent,
  type AbiParameter,
  type Hex,
  decodeEventLog,
  encodeAbiParameters,
  getAbiItem,
  keccak256,
  parseAbiItem,
  toEventSelector,
  toHex,
} from "viem";
import { describe, expect, it } from "vitest";
import { clankerFactoryAbi, clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { clankerHookAbi } from "../../common/abis/clanker-hook.js";
import { afterSwapProtocolFee, exactInBuyProtocolFee, exactOutSellProtocolFee } from "./protocol-fee.js";

const TRACES = join(process.cwd(), "..", "shared", "reference", "clanker-v4-traces");

type Value = string | Value[] | { [k: string]: Value };
type RecordedLog = { emitter: string; event: string; signature: string; indexed?: string[]; args: Record<string, Value> };
type RecordedSwap = {
  swap: "step" | "nested";
  direction: "buy" | "sell";
  kind: "exactIn" | "exactOut";
  amount0: string;
  amount1: string;
  lpFee: string;
  protocolFee: string;
  protocolFeeTakenIn: "beforeSwap" | "afterSwap";
};
type Step = {
  index: number;
  label: string;
  action: string;
  inputs?: Record<string, unknown>;
  expect: { status: string; logs?: RecordedLog[]; swaps?: RecordedSwap[]; state?: { hook?: { pairedClaims?: string } } };
};
type Trace = { scenario: string; ordering: { tokenIsCurrency0: boolean }; steps: Step[] };

/** The project's ABI of each event of these contracts, by emitter. */
const ABIS: Record<string, Abi> = {
  $launcher: clankerFactoryAbi,
  $lpLocker: clankerLpLockerAbi,
  $feeLocker: clankerFeeLockerAbi,
  $hook: clankerHookAbi,
};
/** Which recorded events must decode, by emitter (the auction's and the hook's MEV events: auction-trace-logs.test.ts). */
const MUST_DECODE: Record<string, string[]> = {
  $launcher: ["TokenCreated", "ClaimTeamFees"],
  $lpLocker: [
    "TokenRewardAdded",
    "InitialFeePreferences",
    "ClaimedRewards",
    "FeesSwapped",
    "FeePreferenceUpdated",
    "RewardRecipientUpdated",
    "RewardAdminUpdated",
  ],
  $feeLocker: ["StoreTokens", "ClaimTokens"],
  $hook: ["ClaimProtocolFees", "PoolCreatedFactory", "PoolInitialized"],
};
/**
 * Recorded events of these emitters the project does not read, with the reason:
 * - `ClaimTeamFees`: the factory's payout to the Clanker team, none of the service's business;
 * - `EstimatedTickDifference`: the dynamic-fee hook's diagnostic of each swap;
 * - the dynamic-fee hook's own `PoolInitialized` (eight fields, another topic0): the service reads
 *   a pool's fees from the static hook's layout only, and treats a pool without it as one whose
 *   fees by direction are unknown (indexer/launcher.ts).
 */
const NOT_READ = new Set([
  // auction-trace-logs.test.ts decodes these.
  "$hook PoolExtensionRegistered(bytes32,address)",
  "$hook MevModuleSetFee(bytes32,uint24)",
  "$hook MevModuleDisabled(bytes32)",
  "$launcher ClaimTeamFees(address,address,uint256)",
  "$hook EstimatedTickDifference(int24,int24)",
  "$hook PoolInitialized(bytes32,uint24,uint24,uint256,uint256,int24,uint256,uint24)",
]);

/** A stand-in for a recorded scalar: `$role`, `$poolId`, `$launchTime+N`… become fixed values of their type. */
function scalar(type: string, recorded: string): unknown {
  if (type === "address") return recorded.startsWith("$") ? (`0x${keccak256(toHex(recorded)).slice(-40)}` as Hex) : (recorded as Hex);
  if (type === "bytes32") return recorded.startsWith("$") ? keccak256(toHex(recorded)) : (recorded as Hex);
  if (type === "bool") return recorded === "true";
  if (type.startsWith("uint") || type.startsWith("int")) {
    const offset = /^\$(\w+)\+(\d+)$/.exec(recorded);
    if (offset) return 1_000_000n + BigInt(offset[2]!);
    if (recorded.startsWith("$")) return BigInt(keccak256(toHex(recorded))) >> 200n;
    return BigInt(recorded);
  }
  return recorded;
}

/** The value of a recorded argument of ABI parameter `p` (tuples recorded as objects, arrays as arrays). */
function recordedValue(p: AbiParameter, recorded: Value): unknown {
  if (p.type.endsWith("]")) {
    const inner = { ...p, type: p.type.slice(0, p.type.lastIndexOf("[")) } as AbiParameter;
    return (recorded as Value[]).map((v) => recordedValue(inner, v));
  }
  if (p.type === "tuple") {
    const components = (p as { components: readonly AbiParameter[] }).components;
    const values = Array.isArray(recorded) ? recorded : Object.values(recorded as Record<string, Value>);
    return components.map((c, i) => recordedValue(c, values[i]!));
  }
  return scalar(p.type, recorded as string);
}

/** A decoded value in one comparable shape: tuples as arrays, numbers as decimal strings, addresses lowercase. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object") return Object.values(v).map(plain);
  if (typeof v === "bigint" || typeof v === "number") return v.toString();
  if (typeof v === "string") return v.toLowerCase();
  return v;
}

/** The raw log the real contract emitted for a recorded one, and each argument's value by position. */
function rawLog(log: RecordedLog): { topics: [Hex, ...Hex[]]; data: Hex; values: unknown[] } {
  const item = parseAbiItem(`event ${log.event}${log.signature.slice(log.signature.indexOf("("))}`) as AbiEvent;
  const names = Object.keys(log.args);
  const indexed = new Set(log.indexed ?? []);
  const values = item.inputs.map((p, i) => recordedValue(p, log.args[names[i]!]!));
  const topics: [Hex, ...Hex[]] = [toEventSelector(log.signature)];
  const data: { p: AbiParameter; v: unknown }[] = [];
  item.inputs.forEach((p, i) => {
    if (indexed.has(names[i]!)) topics.push(encodeAbiParameters([p], [values[i]]));
    else data.push({ p, v: values[i] });
  });
  return {
    topics,
    data: encodeAbiParameters(
      data.map((d) => d.p),
      data.map((d) => d.v),
    ),
    values,
  };
}

const traces: Trace[] = existsSync(TRACES)
  ? readdirSync(TRACES)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(TRACES, f), "utf8")) as Trace)
  : [];

describe("the recorded logs of Clanker's factory, LP locker, fee locker and hook decode with the project's ABIs", () => {
  it("the traces are there", () => {
    expect(traces.length).toBeGreaterThanOrEqual(5);
  });

  const logs = traces.flatMap((t) =>
    t.steps.flatMap((s) =>
      (s.expect.logs ?? []).flatMap((log, i) => (ABIS[log.emitter] ? [{ name: `${t.scenario} step ${s.index} log ${i} ${log.event}`, log }] : [])),
    ),
  );

  it("every event the project reads was recorded, and every recorded one is read or named as not read", () => {
    const seen = new Set(logs.map(({ log }) => `${log.emitter} ${log.event}`));
    for (const [emitter, events] of Object.entries(MUST_DECODE))
      for (const event of events) expect(seen, `${emitter} ${event}`).toContain(`${emitter} ${event}`);
    for (const { name, log } of logs) {
      if (NOT_READ.has(`${log.emitter} ${log.signature}`)) continue;
      expect(MUST_DECODE[log.emitter], name).toContain(log.event);
    }
  });

  it.each(logs.filter(({ log }) => !NOT_READ.has(`${log.emitter} ${log.signature}`)))("$name", ({ log }) => {
    const { topics, data, values } = rawLog(log);
    const decoded = decodeEventLog({ abi: ABIS[log.emitter]!, topics, data, strict: true });
    expect(decoded.eventName).toBe(log.event);
    // By the project's argument order (viem returns the indexed ones first).
    const item = getAbiItem({ abi: ABIS[log.emitter]!, name: log.event }) as AbiEvent;
    const args = decoded.args as unknown as Record<string, unknown>;
    expect(plain(item.inputs.map((input) => args[input.name!]))).toEqual(plain(values));
  });
});

describe("the recorded protocol fees are production's maths, to the base unit", () => {
  const swaps = traces.flatMap((t) =>
    t.steps.flatMap((s) =>
      (s.expect.swaps ?? []).map((swap, i) => ({ name: `${t.scenario} step ${s.index} swap ${i} (${swap.swap} ${swap.direction} ${swap.kind})`, t, s, swap })),
    ),
  );

  it("the traces hold swaps of every kind", () => {
    const kinds = new Set(swaps.map(({ swap }) => `${swap.direction} ${swap.kind}`));
    expect([...kinds].sort()).toEqual(["buy exactIn", "buy exactOut", "sell exactIn", "sell exactOut"]);
  });

  it.each(swaps)("$name", ({ t, s, swap }) => {
    const paired = BigInt(t.ordering.tokenIsCurrency0 ? swap.amount1 : swap.amount0); // the pool's view from the swapper's side
    const moved = paired < 0n ? -paired : paired;
    const recorded = BigInt(swap.protocolFee);
    const kind = `${swap.direction} ${swap.kind}`;
    if (kind === "buy exactIn") {
      // Taken off the specified input before the pool sees it: the swapper paid the pool's part plus the fee.
      expect(swap.protocolFeeTakenIn).toBe("beforeSwap");
      const amountIn = moved + recorded;
      if (swap.swap === "step") expect(amountIn.toString()).toBe(String(s.inputs!.amountIn));
      expect(exactInBuyProtocolFee(amountIn, BigInt(swap.lpFee))).toBe(recorded);
    } else if (kind === "sell exactOut") {
      // Added to the specified output: the pool gave the swapper's amount plus the fee.
      expect(swap.protocolFeeTakenIn).toBe("beforeSwap");
      const amountOut = moved - recorded;
      expect(amountOut.toString()).toBe(String(s.inputs!.amountOut));
      expect(exactOutSellProtocolFee(amountOut, BigInt(swap.lpFee))).toBe(recorded);
    } else {
      expect(swap.protocolFeeTakenIn).toBe("afterSwap");
      expect(afterSwapProtocolFee(moved, BigInt(swap.lpFee))).toBe(recorded);
    }
  });

  it("the hook holds the fees minted since its last payout, and pays them all, in the paired token, at the start of each swap", () => {
    let checked = 0;
    for (const t of traces) {
      let held: bigint | undefined;
      for (const s of t.steps) {
        const claims = s.expect.state?.hook?.pairedClaims;
        const swaps = s.expect.swaps ?? [];
        if (held !== undefined && s.expect.status === "success" && swaps.length > 0) {
          // The actor's swap starts first (its payout), the locker's conversions run inside its
          // beforeSwap (each paying what the one before minted), and its own fee comes last.
          const expected: { token: string; amount: string }[] = [];
          const start = () => {
            if (held! > 0n) expected.push({ token: "$usdc", amount: held!.toString() });
            held = 0n;
          };
          const step = swaps.find((w) => w.swap === "step");
          if (step) start();
          for (const nested of swaps.filter((w) => w.swap === "nested")) {
            start();
            held! += BigInt(nested.protocolFee);
          }
          if (step) held! += BigInt(step.protocolFee);
          const payouts = (s.expect.logs ?? []).filter((l) => l.emitter === "$hook" && l.event === "ClaimProtocolFees");
          expect(
            payouts.map((l) => l.args),
            `${t.scenario} step ${s.index}`,
          ).toEqual(expected);
          if (claims !== undefined) expect(held, `${t.scenario} step ${s.index}`).toBe(BigInt(claims));
          checked++;
        }
        if (claims !== undefined) held = BigInt(claims);
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
