/**
 * Every sniper-auction log recorded on Clanker's own contracts (../shared/reference/
 * clanker-v4-traces: the MEV module's events, and the hook's PoolExtensionRegistered,
 * MevModuleSetFee and MevModuleDisabled) decodes with the project's ABIs into the recorded
 * arguments: each log is rebuilt as the real contract emitted it (topic0 from its signature, its
 * `indexed` arguments as topics, the rest as data), with roles and hashes given stand-in values.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type Abi, type AbiEvent, type Hex, decodeEventLog, encodeAbiParameters, keccak256, parseAbiItem, toEventSelector, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { clankerHookAbi, sniperAuctionAbi } from "../../common/abis/clanker-hook.js";

const TRACES = join(process.cwd(), "..", "shared", "reference", "clanker-v4-traces");
type RecordedLog = { emitter: string; event: string; signature: string; indexed?: string[]; args: Record<string, string> };
type Trace = { scenario: string; steps: { index: number; expect: { logs?: RecordedLog[] } }[] };

/** The emitters and events of the auction, as the project reads them. */
const AUCTION_LOGS: Record<string, { emitter: string; abi: Abi }> = {
  AuctionInitialized: { emitter: "$mevModule", abi: sniperAuctionAbi },
  AuctionWon: { emitter: "$mevModule", abi: sniperAuctionAbi },
  AuctionReset: { emitter: "$mevModule", abi: sniperAuctionAbi },
  AuctionRewardsTransferred: { emitter: "$mevModule", abi: sniperAuctionAbi },
  AuctionExpired: { emitter: "$mevModule", abi: sniperAuctionAbi },
  AuctionEnded: { emitter: "$mevModule", abi: sniperAuctionAbi },
  FeeConfigSet: { emitter: "$mevModule", abi: sniperAuctionAbi },
  DecayPeriodOver: { emitter: "$mevModule", abi: sniperAuctionAbi },
  PoolExtensionRegistered: { emitter: "$hook", abi: clankerHookAbi },
  MevModuleSetFee: { emitter: "$hook", abi: clankerHookAbi },
  MevModuleDisabled: { emitter: "$hook", abi: clankerHookAbi },
};

/** A stand-in for a recorded value: `$role`, `$poolId`, `$launchBlock+N` become fixed values of their type. */
function value(type: string, recorded: string): unknown {
  if (type === "address") return recorded.startsWith("$") ? (`0x${keccak256(toHex(recorded)).slice(-40)}` as Hex) : (recorded as Hex);
  if (type === "bytes32") return recorded.startsWith("$") ? keccak256(toHex(recorded)) : (recorded as Hex);
  const block = /^\$launchBlock\+(\d+)$/.exec(recorded);
  if (block) return 1_000_000n + BigInt(block[1]!);
  return type.startsWith("uint") || type.startsWith("int") ? BigInt(recorded) : recorded;
}

/** The raw log the real contract emitted for a recorded one (an argument recorded without a name is named by position). */
function rawLog(log: RecordedLog): { topics: [Hex, ...Hex[]]; data: Hex; inputs: { name: string; type: string; value: unknown }[] } {
  const types = log.signature
    .slice(log.signature.indexOf("(") + 1, -1)
    .split(",")
    .filter(Boolean);
  const recorded = Object.keys(log.args);
  const inputs = types.map((type, i) => {
    const name = recorded[i] ?? `arg${i}`;
    return { name, type, value: value(type, log.args[name] ?? `$${name}`) };
  });
  const indexed = new Set(log.indexed ?? []);
  const topics: [Hex, ...Hex[]] = [toEventSelector(log.signature)];
  for (const input of inputs.filter((x) => indexed.has(x.name))) topics.push(encodeAbiParameters([{ type: input.type }], [input.value]));
  const rest = inputs.filter((x) => !indexed.has(x.name));
  const data = encodeAbiParameters(
    rest.map((x) => ({ type: x.type })),
    rest.map((x) => x.value),
  );
  return { topics, data, inputs };
}

const traces: Trace[] = existsSync(TRACES)
  ? readdirSync(TRACES)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(TRACES, f), "utf8")) as Trace)
  : [];

describe("the recorded auction logs of the real contracts decode with the project's ABIs", () => {
  it("the traces are there and hold auction logs", () => {
    expect(traces.length).toBeGreaterThanOrEqual(5);
  });

  const cases = traces.flatMap((t) =>
    t.steps.flatMap((s) =>
      (s.expect.logs ?? []).flatMap((log, i) =>
        AUCTION_LOGS[log.event]?.emitter === log.emitter ? [{ name: `${t.scenario} step ${s.index} log ${i} ${log.event}`, log }] : [],
      ),
    ),
  );

  it("covers every auction event the traces recorded", () => {
    expect(new Set(cases.map((c) => c.log.event))).toEqual(
      new Set([
        "AuctionInitialized",
        "AuctionWon",
        "AuctionReset",
        "AuctionRewardsTransferred",
        "AuctionExpired",
        "FeeConfigSet",
        "DecayPeriodOver",
        "PoolExtensionRegistered",
        "MevModuleSetFee",
        "MevModuleDisabled",
      ]),
    );
  });

  it.each(cases)("$name", ({ log }) => {
    const { abi } = AUCTION_LOGS[log.event]!;
    const ours = abi.find((item): item is AbiEvent => item.type === "event" && item.name === log.event)!;
    expect(ours, `${log.event} in the project's ABI`).toBeDefined();
    const { topics, data, inputs } = rawLog(log);
    const decoded = decodeEventLog({ abi: [ours], topics, data, strict: true });
    expect(decoded.eventName).toBe(log.event);
    const args = decoded.args as unknown as Record<string, unknown> | unknown[];
    const values = Array.isArray(args) ? args : ours.inputs.map((input) => args[input.name!]);
    const norm = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : typeof v === "number" ? BigInt(v) : v);
    expect(values.map(norm)).toEqual(inputs.map((x) => norm(x.value)));
    expect(ours.inputs.map((input) => Boolean(input.indexed))).toEqual(inputs.map((x) => (log.indexed ?? []).includes(x.name)));
  });

  it("AuctionEnded (not in the traces) has the real module's layout: PoolId indexed", () => {
    const ours = sniperAuctionAbi.find((item) => item.type === "event" && item.name === "AuctionEnded") as AbiEvent;
    expect(ours).toEqual(parseAbiItem("event AuctionEnded(bytes32 indexed poolId)"));
  });
});
