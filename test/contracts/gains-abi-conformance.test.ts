/**
 * The project's gTrade v10 ABI (common/abis/gains.ts) against the ABI Gains Network ships in
 * `@gainsnetwork/sdk` 1.8.7 (its `GNSMultiCollatDiamond` factory, a development dependency of this
 * test only): every function the project calls or reads has the SDK's selector, inputs, outputs and
 * mutability; every event it decodes has the SDK's topic0, input order, tuple layouts, names and
 * `indexed` flags. The hex values pinned in the reference (shared/reference/gtrade-v10.md §1.3-1.4)
 * are checked too, so an edit of either side cannot silently stop matching. The devnet's twin of the
 * diamond (contracts/protocol/gains) must serve every one of these items with the same selector,
 * topic0, outputs and indexed inputs. No chain needed: this only compiles.
 */
import { createRequire } from "node:module";
import { type Abi, type AbiEvent, type AbiFunction, type AbiParameter, type Hex, toEventSelector, toFunctionSelector } from "viem";
import { formatAbiItem } from "viem/utils";
import { beforeAll, describe, expect, it } from "vitest";
import { gainsAbi, gainsErrorsAbi, gainsEventsAbi, gainsTradingAbi, gainsViewsAbi } from "../../common/abis/gains.js";
import { compileProject } from "../../devnet/compile.js";

const require = createRequire(import.meta.url);
const sdkAbi = (
  require("@gainsnetwork/sdk/lib/contracts/types/generated/factories/GNSMultiCollatDiamond__factory.js") as {
    GNSMultiCollatDiamond__factory: { abi: Abi };
  }
).GNSMultiCollatDiamond__factory.abi;

/** Canonical type of a parameter, tuples expanded, e.g. `(address,uint32)`. */
function canonicalType(param: AbiParameter): string {
  if (!param.type.startsWith("tuple")) return param.type;
  const components = (param as { components: readonly AbiParameter[] }).components;
  return `(${components.map(canonicalType).join(",")})${param.type.slice("tuple".length)}`;
}

/** A parameter's names down through its tuples, e.g. `orderId(user,index)`. */
function namedLayout(param: AbiParameter): string {
  if (!param.type.startsWith("tuple")) return `${param.name ?? ""}:${param.type}`;
  const components = (param as { components: readonly AbiParameter[] }).components;
  return `${param.name ?? ""}(${components.map(namedLayout).join(",")})${param.type.slice("tuple".length)}`;
}

/** Static words a non-indexed parameter takes in the log's data (these layouts have no dynamic member). */
function words(param: AbiParameter): number {
  if (!param.type.startsWith("tuple")) return 1;
  return (param as { components: readonly AbiParameter[] }).components.reduce((n, c) => n + words(c), 0);
}

type AbiError = Extract<Abi[number], { type: "error" }>;
const functions = (abi: Abi) => abi.filter((i): i is AbiFunction => i.type === "function");
const events = (abi: Abi) => abi.filter((i): i is AbiEvent => i.type === "event");

function sdkFunction(selector: Hex): AbiFunction {
  const matches = functions(sdkAbi).filter((f) => toFunctionSelector(f) === selector);
  expect(matches, `the SDK ABI has one function with selector ${selector}`).toHaveLength(1);
  return matches[0]!;
}

function sdkEvent(topic0: Hex): AbiEvent {
  const matches = events(sdkAbi).filter((e) => toEventSelector(e) === topic0);
  expect(matches, `the SDK ABI has one event with topic0 ${topic0}`).toHaveLength(1);
  return matches[0]!;
}

const ourFunctions = functions(gainsAbi as unknown as Abi);
const ourEvents = events(gainsEventsAbi as unknown as Abi);

describe("@gainsnetwork/sdk 1.8.7's diamond ABI", () => {
  it("is the ABI the reference describes (677 items: 389 functions, 173 events)", () => {
    expect(sdkAbi).toHaveLength(677);
    expect(functions(sdkAbi)).toHaveLength(389);
    expect(events(sdkAbi)).toHaveLength(173);
  });
});

describe("every function of common/abis/gains.ts", () => {
  it.each(ourFunctions.map((f) => [f.name, f] as const))("%s: the SDK's selector, inputs, outputs and mutability", (_name, ours) => {
    const theirs = sdkFunction(toFunctionSelector(ours));
    expect(ours.name).toBe(theirs.name);
    expect(ours.inputs.map(canonicalType)).toEqual(theirs.inputs.map(canonicalType));
    expect(ours.inputs.map(namedLayout)).toEqual(theirs.inputs.map(namedLayout));
    expect(ours.outputs.map(canonicalType)).toEqual(theirs.outputs.map(canonicalType));
    expect(ours.outputs.map((o) => (o.type.startsWith("tuple") ? namedLayout({ ...o, name: "" }) : o.type))).toEqual(
      theirs.outputs.map((o) => (o.type.startsWith("tuple") ? namedLayout({ ...o, name: "" }) : o.type)),
    );
    expect(ours.stateMutability).toBe(theirs.stateMutability);
  });

  it("trader writes are all nonpayable (gTrade takes no ETH execution fee)", () => {
    for (const f of functions(gainsTradingAbi as unknown as Abi)) expect(f.stateMutability, f.name).toBe("nonpayable");
    for (const f of functions(gainsViewsAbi as unknown as Abi)) expect(f.stateMutability, f.name).toBe("view");
  });
});

describe("every event of common/abis/gains.ts", () => {
  it.each(ourEvents.map((e) => [e.name, e] as const))("%s: the SDK's topic0, layout, names and indexed flags", (_name, ours) => {
    const theirs = sdkEvent(toEventSelector(ours));
    expect(ours.name).toBe(theirs.name);
    expect(ours.inputs.map((i) => `${canonicalType(i)}${i.indexed ? " indexed" : ""}`)).toEqual(
      theirs.inputs.map((i) => `${canonicalType(i)}${i.indexed ? " indexed" : ""}`),
    );
    expect(ours.inputs.map(namedLayout)).toEqual(theirs.inputs.map(namedLayout));
  });

  it("MarketExecuted carries 30 data words, LimitExecuted 32, the resize executions 30 each", () => {
    const dataWords = (name: string) =>
      ourEvents
        .find((e) => e.name === name)!
        .inputs.filter((i) => !i.indexed)
        .reduce((n, i) => n + words(i), 0);
    expect(dataWords("MarketExecuted")).toBe(30);
    expect(dataWords("LimitExecuted")).toBe(32);
    expect(dataWords("PositionSizeIncreaseExecuted")).toBe(30);
    expect(dataWords("PositionSizeDecreaseExecuted")).toBe(30);
  });
});

describe("every error of common/abis/gains.ts", () => {
  const errors = (abi: Abi) => abi.filter((i): i is AbiError => i.type === "error");
  const selectorOf = (e: AbiError) => toFunctionSelector(formatAbiItem(e).replace(/^error /, ""));
  it.each(errors(gainsErrorsAbi as unknown as Abi).map((e) => [e.name, e] as const))("%s is one of the SDK's errors", (_name, ours) => {
    const theirs = errors(sdkAbi).filter((e) => selectorOf(e) === selectorOf(ours));
    expect(theirs.map((e) => e.name)).toEqual([ours.name]);
  });

  it("has the selectors pinned in the reference", () => {
    const pinned: Record<string, Hex> = {
      InsufficientCollateral: "0x3a23d825",
      WrongLeverage: "0x34f38ee9",
      PriceImpactTooHigh: "0xfb30d03a",
      ConflictingPendingOrder: "0x12f5a659",
      AlreadyBeingMarketClosed: "0xb2a76a66",
      WaitTimeout: "0xb1e706e4",
      Paused: "0x9e87fac8",
      NoTrade: "0xa3b36525",
      CollateralNotActive: "0xb4da1e37",
    };
    for (const [name, selector] of Object.entries(pinned)) {
      const e = errors(gainsErrorsAbi as unknown as Abi).find((x) => x.name === name);
      expect(e && selectorOf(e), name).toBe(selector);
    }
  });
});

describe("the values pinned in the reference", () => {
  const SELECTORS: [string, Hex][] = [
    ["openTrade", "0x5bfcc4f8"],
    ["closeTradeMarket", "0x36ce736b"],
    ["increasePositionSize", "0x24058ad3"],
    ["decreasePositionSize", "0xa7cac572"],
    ["updateLeverage", "0x0bce9aaa"],
    ["cancelOrderAfterTimeout", "0xb6919540"],
    ["triggerOrder", "0xeb9359aa"],
    ["getTrade", "0x15878e07"],
    ["getTrades", "0x4bfad7c0"],
    ["getTradeInfo", "0x75cd812d"],
    ["getTradeFeesData", "0x62a6ace6"],
    ["getTradeLiquidationParams", "0x28dc892f"],
    ["getTradeLiquidationPrice", "0xef6c0449"],
    ["getTradePendingHoldingFeesCollateral", "0x668cdc31"],
    ["getPendingOrders", "0x4c73cb25"],
    ["getCounters", "0x0212f0d6"],
    ["pairs", "0xb91ac788"],
    ["pairMinLeverage", "0x59a992d0"],
    ["pairMaxLeverage", "0x281b693c"],
    ["pairMinFeeUsd", "0x8078bfbe"],
    ["pairMinPositionSizeUsd", "0x5e26ff4e"],
    ["pairTotalPositionSizeFeeP", "0xc927b4b6"],
    ["getPairMaxOiCollateral", "0x274d1278"],
    ["getCollateralIndex", "0x5c3ed7c3"],
    ["getCollateral", "0xbb33a55b"],
    ["getCollateralPriceUsd", "0xbbb4e3f9"],
    ["getMarketOrdersTimeoutBlocks", "0xa4bdee80"],
    ["getTradingActivated", "0x4115c122"],
    ["facetAddress", "0xcdffacc6"],
  ];
  it.each(SELECTORS)("%s is %s", (name, selector) => {
    const f = ourFunctions.filter((x) => x.name === name);
    expect(f).toHaveLength(1);
    expect(toFunctionSelector(f[0]!)).toBe(selector);
  });

  const TOPICS: [string, Hex][] = [
    ["MarketOrderInitiated", "0x3a60290d7335bce64a807e90f39655517bb5fa702423fa8fac283a5ea16d3a97"],
    ["MarketExecuted", "0xbdc1265da95238ea4c775f66ac8fe748af83982c4b356ac4d0c28a0f512c0a8b"],
    ["MarketOpenCanceled", "0x7eff27ae2299e6454b6a721ec354924d1ceecda0edc94618ebfeb5b9b6483e5e"],
    ["MarketCloseCanceled", "0x1d7048e18d77f0864147aec27ae4b78d421fe35ddde1ea0ec535562c4a90cc58"],
    ["LimitExecuted", "0x9c19bc42a9be820f3366fa0563f85e5c227966eaea4c45acd2f7cd868086a17d"],
    ["PositionSizeUpdateInitiated", "0xef86ff293bce1d37f4b09f9c27b48f752d86a9fde1109f1bd8b806e05e7bada5"],
    ["PositionSizeIncreaseExecuted", "0x3b7323355a4d9442335bf892bd48defd6c1647cb9c7170cb42f41dfba8e95aeb"],
    ["PositionSizeDecreaseExecuted", "0x38297f283e8c7319a10c298de767e2b919d8f506a0c15c6579fb7ad1c049cb43"],
    ["LeverageUpdateInitiated", "0xf4181f0fa2e1d3cda20bb810e0427d87916eb5dac8c73a7f779ae13e55ec578f"],
    ["LeverageUpdateExecuted", "0x2fb840f62af77e2ac17f7499425ebdb903a2c05b9d00b29fe2cec3e308f6a99e"],
    ["ChainlinkCallbackTimeout", "0x3f709185dd46048fccc37c6e34d58fff306fc7991fdbae962679345db3ed2e32"],
    ["CollateralReturnedAfterTimeout", "0xf7be13f33d17f250cf33acce625397fe761b23c88564ff5d92b9b0dcd5804373"],
    ["TradingActivatedUpdated", "0x4b502c3b75c299352edc7887297ae0f7c401ed654650a4c0e663458b6ed75fe4"],
  ];
  it.each(TOPICS)("%s is %s", (name, topic0) => {
    const e = ourEvents.filter((x) => x.name === name);
    expect(e).toHaveLength(1);
    expect(toEventSelector(e[0]!)).toBe(topic0);
  });

  it("every function and event of the project's ABI is pinned here", () => {
    expect(new Set(ourFunctions.map((f) => f.name))).toEqual(new Set(SELECTORS.map(([n]) => n)));
    expect(new Set(ourEvents.map((e) => e.name))).toEqual(new Set(TOPICS.map(([n]) => n)));
  });
});

describe("the devnet's twin of the diamond (GainsDiamond) serves the project's whole gTrade ABI", () => {
  let twin: Abi;
  beforeAll(() => {
    twin = compileProject().GainsDiamond!.abi;
  }, 600_000);

  it("every function with its selector, outputs and mutability", () => {
    const missing = ourFunctions.filter((ours) => {
      const theirs = functions(twin).find((f) => toFunctionSelector(f) === toFunctionSelector(ours));
      if (!theirs) return true;
      const kind = (f: AbiFunction) => (f.stateMutability === "pure" ? "view" : f.stateMutability);
      return theirs.outputs.map(canonicalType).join() !== ours.outputs.map(canonicalType).join() || kind(theirs) !== kind(ours);
    });
    expect(missing.map((f) => f.name)).toEqual([]);
  });

  it("every event with its topic0, input names and indexed flags", () => {
    const missing = ourEvents.filter((ours) => {
      const theirs = events(twin).find((e) => toEventSelector(e) === toEventSelector(ours));
      return (
        !theirs ||
        theirs.inputs.map((i) => `${namedLayout(i)}${i.indexed ? " indexed" : ""}`).join() !==
          ours.inputs.map((i) => `${namedLayout(i)}${i.indexed ? " indexed" : ""}`).join()
      );
    });
    expect(missing.map((e) => e.name)).toEqual([]);
  });

  /** Errors of gTrade's price-impact and resize checks, which the twin (no price impact; resizes checked as it does) never raises. */
  const NOT_RAISED = new Set(["PriceImpactTooHigh", "NewPositionSizeSmaller"]);

  it("every error the project decodes, except those the twin never raises", () => {
    const names = new Set(twin.filter((i): i is AbiError => i.type === "error").map((i) => i.name));
    const ours = (gainsErrorsAbi as unknown as Abi).filter((e): e is AbiError => e.type === "error");
    expect(ours.filter((e) => !names.has(e.name) && !NOT_RAISED.has(e.name)).map((e) => e.name)).toEqual([]);
  });
});
