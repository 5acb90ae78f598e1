/**
 * The devnet protocol simulators must expose the production selectors and event topics byte
 * for byte, so the indexer and engine, written against the Base ABIs, run unchanged on anvil.
 *
 * Clanker: compared with the ABIs clanker-sdk ships (the SDK's own copies of the deployed
 * contracts' ABIs). Avantis and Uniswap: compared with the values pinned in
 * `shared/reference/protocols.md`. The service's own ABIs (common/abis) are checked the same
 * way, item by item, and every one of their items must exist on the devnet contract that serves
 * it, so the indexer and engine can call and decode them there. No chain needed: this only compiles.
 */
import { CLANKERS } from "clanker-sdk";
import { Clanker as ClankerSdk } from "clanker-sdk/v4";
import { createRequire } from "node:module";
import { type Abi, type AbiEvent, type AbiFunction, type AbiParameter, type Hex, decodeAbiParameters, toEventSelector, toFunctionSelector } from "viem";
import { formatAbiItem } from "viem/utils";
import { beforeAll, describe, expect, it } from "vitest";
import * as productionAbis from "../../common/abis/index.js";
import { type Artifacts, compileProject } from "../../devnet/compile.js";

const require = createRequire(import.meta.url);
const SOME_ADDRESS = "0x0000000000000000000000000000000000000001" as const;

let artifacts: Artifacts;
let sdk: { factory: Abi; locker: Abi; feeLocker: Abi; token: Abi };

beforeAll(async () => {
  artifacts = compileProject();
  const clanker = new ClankerSdk();
  const claim = await clanker.getClaimRewardsTransaction({ token: SOME_ADDRESS, rewardRecipient: SOME_ADDRESS });
  const update = await clanker.getUpdateRewardRecipientTransaction({
    token: SOME_ADDRESS,
    rewardIndex: 0n,
    newRecipient: SOME_ADDRESS,
  });
  sdk = {
    factory: CLANKERS.clanker_v4.abi as Abi,
    locker: update.abi as Abi,
    feeLocker: claim.abi as Abi,
    token: CLANKERS.clanker_v4.token.abi as Abi,
  };
}, 300_000);

function abiOf(contract: string): Abi {
  const artifact = artifacts[contract];
  if (!artifact) throw new Error(`no compiled contract named ${contract}`);
  return artifact.abi;
}

function functionsNamed(abi: Abi, name: string): AbiFunction[] {
  return abi.filter((item): item is AbiFunction => item.type === "function" && item.name === name);
}

function eventNamed(abi: Abi, name: string): AbiEvent {
  const events = abi.filter((item): item is AbiEvent => item.type === "event" && item.name === name);
  if (events.length !== 1) throw new Error(`expected one event ${name}, found ${events.length}`);
  return events[0]!;
}

/** Canonical type of a parameter, tuples expanded, e.g. `(address,(address,uint24)[])`. */
function canonicalType(param: AbiParameter): string {
  if (!param.type.startsWith("tuple")) return param.type;
  const components = (param as { components: readonly AbiParameter[] }).components;
  return `(${components.map(canonicalType).join(",")})${param.type.slice("tuple".length)}`;
}

/** What an event decoder depends on: order, types (tuples expanded) and indexed flags. */
function eventShape(event: AbiEvent): string[] {
  return event.inputs.map((input) => `${canonicalType(input)}${input.indexed ? " indexed" : ""}`);
}

function ourFunction(contract: string, selector: Hex): AbiFunction {
  const matches = abiOf(contract).filter((item): item is AbiFunction => item.type === "function" && toFunctionSelector(item) === selector);
  expect(matches, `${contract} has no function with selector ${selector}`).toHaveLength(1);
  return matches[0]!;
}

/** Same selector, same return types, same mutability class (view / write / payable write). */
function expectSameFunction(contract: string, productionAbi: Abi, name: string): Hex {
  const production = functionsNamed(productionAbi, name);
  expect(production, `production ABI has ${name}`).toHaveLength(1);
  const selector = toFunctionSelector(production[0]!);
  const ours = ourFunction(contract, selector);
  expect(ours.name).toBe(name);
  expect(ours.outputs.map(canonicalType), `${name} outputs`).toEqual(production[0]!.outputs.map(canonicalType));
  const kind = (f: AbiFunction) => (f.stateMutability === "pure" ? "view" : f.stateMutability);
  expect(kind(ours), `${name} mutability`).toBe(kind(production[0]!));
  return selector;
}

/** Same topic0 and same indexed flags (the topic alone does not pin which inputs are topics). */
function expectSameEvent(contract: string, productionAbi: Abi, name: string): Hex {
  const production = eventNamed(productionAbi, name);
  const ours = eventNamed(abiOf(contract), name);
  expect(toEventSelector(ours), `${name} topic0`).toBe(toEventSelector(production));
  expect(eventShape(ours), `${name} inputs`).toEqual(eventShape(production));
  expect(
    ours.inputs.map((i) => i.name),
    `${name} input names`,
  ).toEqual(production.inputs.map((i) => i.name));
  return toEventSelector(ours);
}

/**
 * Items of clanker-sdk's v4 ABIs the devnet leaves out on purpose, keyed as `missingItems` names them, each with
 * why. Everything else in the four ABIs must exist on the devnet contract with the same selector (functions,
 * errors) or topic0 (events), the same outputs and mutability class, and the same indexed inputs. A new gap, or a
 * gap closed without removing its entry here, fails the test.
 */
const LEFT_OUT: Record<string, string> = {
  "ClankerToken error InvalidShortString()":
    "raised only inside OpenZeppelin's ShortStrings.toString for a malformed 32-byte short string, which production's " +
    "EIP712 never builds (unreachable there too); the devnet token hashes its EIP-712 name from the string itself, " +
    "so no code path of it could ever raise this error",
};

/** The SDK ABI each devnet contract answers for. */
const SURFACES = [
  ["Clanker", () => sdk.factory],
  ["ClankerLpLocker", () => sdk.locker],
  ["ClankerFeeLocker", () => sdk.feeLocker],
  ["ClankerToken", () => sdk.token],
] as const;

type SurfaceItem = AbiFunction | AbiEvent | Extract<Abi[number], { type: "error" }>;
const surfaceOf = (abi: Abi) => abi.filter((item): item is SurfaceItem => item.type === "function" || item.type === "event" || item.type === "error");
const surfaceId = (item: SurfaceItem) => (item.type === "event" ? toEventSelector(item) : toFunctionSelector(formatAbiItem(item).replace(/^error /, "")));
/** What must agree beyond the id: outputs and mutability class (functions), indexed inputs (events). */
const surfaceShape = (item: SurfaceItem) =>
  item.type === "function"
    ? `${item.outputs.map(canonicalType).join(",")} ${item.stateMutability === "pure" ? "view" : item.stateMutability}`
    : item.type === "event"
      ? eventShape(item).join(",")
      : "";

/** `Contract type signature` of every SDK item with no devnet item of the same id and shape. */
function missingItems(contract: string, theirs: Abi): string[] {
  const ours = surfaceOf(abiOf(contract));
  return surfaceOf(theirs)
    .filter((item) => !ours.some((o) => o.type === item.type && surfaceId(o) === surfaceId(item) && surfaceShape(o) === surfaceShape(item)))
    .map((item) => `${contract} ${item.type} ${formatAbiItem(item).replace(/^(function|event|error) /, "")}`);
}

describe("the devnet Clanker contracts implement clanker-sdk's whole v4 surface", () => {
  it("every function, event and error exists on the devnet, except the items left out on purpose", () => {
    const missing = SURFACES.flatMap(([contract, abi]) => missingItems(contract, abi()));
    expect(missing.sort()).toEqual(Object.keys(LEFT_OUT).sort());
  });

  it("each item left out says why", () => {
    for (const [item, reason] of Object.entries(LEFT_OUT)) expect(reason.length, item).toBeGreaterThan(20);
  });

  it("the four SDK ABIs are not empty (the comparison covers something)", () => {
    for (const [contract, abi] of SURFACES) expect(surfaceOf(abi()).length, contract).toBeGreaterThan(10);
  });
});

describe("Clanker v4 factory (clanker-sdk Clanker_v4_abi)", () => {
  it.each(["deployToken", "tokenDeploymentInfo", "deploymentInfoForToken", "setLocker", "enabledLockers", "TOKEN_SUPPLY"])("function %s", (name) => {
    expectSameFunction("Clanker", sdk.factory, name);
  });

  it("deployToken has the production selector and is payable", () => {
    const selector = expectSameFunction("Clanker", sdk.factory, "deployToken");
    expect(selector).toBe("0xdf40224a");
    expect(ourFunction("Clanker", selector).stateMutability).toBe("payable");
  });

  it.each(["TokenCreated", "ExtensionTriggered", "ClaimTeamFees", "SetLocker"])("event %s", (name) => {
    expectSameEvent("Clanker", sdk.factory, name);
  });

  it("TokenCreated has the topic pinned in protocols.md", () => {
    expect(expectSameEvent("Clanker", sdk.factory, "TokenCreated")).toBe("0x9299d1d1a88d8e1abdc591ae7a167a6bc63a8f17d695804e9091ee33aa89fb67");
  });
});

describe("Clanker v4 hook and MEV module (production.md §2-3)", () => {
  const TOPICS: [string, string, Hex][] = [
    ["ClankerHookStaticFeeV2", "PoolCreatedFactory", "0xc2cc0ae95873d7fa4e50998bc075ab443517931580a05c3f76d9fc983c666a5c"],
    ["ClankerHookStaticFeeV2", "PoolInitialized", "0xde0cc41485843685947cd8856be361f8038580ba3916da280a9e36d8cc499982"],
    ["ClankerHookStaticFeeV2", "ClaimProtocolFees", "0x175b790d44599ca70432cc8d1406504cb3a28fc13ff995c06dde6663412b211a"],
    ["ClankerHookStaticFeeV2", "MevModuleDisabled", "0x5fd57032db0db564bdfe22ff91033c11d319a1e6b3677e723545a7ba3e304b93"],
    ["ClankerHookStaticFeeV2", "MevModuleSetFee", "0x05275af3b70c3443abf635099e048f0c9808e8553eb2c8d8ba5ba5e827df2095"],
    ["ClankerHookDynamicFeeV2", "PoolCreatedFactory", "0xc2cc0ae95873d7fa4e50998bc075ab443517931580a05c3f76d9fc983c666a5c"],
    ["ClankerHookDynamicFeeV2", "ClaimProtocolFees", "0x175b790d44599ca70432cc8d1406504cb3a28fc13ff995c06dde6663412b211a"],
    ["ClankerHookDynamicFeeV2", "MevModuleDisabled", "0x5fd57032db0db564bdfe22ff91033c11d319a1e6b3677e723545a7ba3e304b93"],
    ["ClankerHookDynamicFeeV2", "MevModuleSetFee", "0x05275af3b70c3443abf635099e048f0c9808e8553eb2c8d8ba5ba5e827df2095"],
    ["ClankerSniperAuctionV2", "AuctionInitialized", "0x176cc986e6995c5872fc36534f279215f7d45149c89e3fa68ca7f0cf2b5aa178"],
    ["ClankerSniperAuctionV2", "AuctionWon", "0xe04531dd1a58ec42a539bacca9922b8dfb9787388d1393fdbe5ecbbcf075ab9f"],
    ["ClankerSniperAuctionV2", "AuctionRewardsTransferred", "0x2001b9eceb538108ac9eb8e5786be123dfb1374c532063b92e8f6d24ef94877d"],
    ["ClankerSniperAuctionV2", "AuctionExpired", "0x7e084355d30ee8e5a1599841a0fc9a5d77ab0cf5862a15bdab0064a3d154519c"],
    ["ClankerSniperAuctionV2", "AuctionEnded", "0x447d0298e6e2716a4343195759c35b277a60b76e628284d93262fa9869db9921"],
    ["ClankerSniperAuctionV2", "FeeConfigSet", "0xc0515a1e6791bef54bf6f7c7b020e9481b5eab55c06e702ac0c542cb8c993d4c"],
    ["ClankerSniperAuctionV2", "DecayPeriodOver", "0x9842d4551fd02d8d61f565c7fd8fe7ee93ab1dbd794827138850d94109c6a389"],
  ];
  it.each(TOPICS)("%s event %s has production's topic0 %s", (contract, name, topic) => {
    expect(toEventSelector(eventNamed(abiOf(contract), name))).toBe(topic);
    const common = contract.startsWith("ClankerHook") ? productionAbis.clankerHookAbi : productionAbis.sniperAuctionAbi;
    expect(toEventSelector(eventNamed(common as unknown as Abi, name))).toBe(topic);
  });

  it.each([
    ["AuctionWon", [0, 1]],
    ["AuctionRewardsTransferred", [0]],
  ] as const)("%s indexes the inputs production indexes", (name, indexed) => {
    const event = eventNamed(abiOf("ClankerSniperAuctionV2"), name);
    expect(event.inputs.flatMap((input, i) => (input.indexed ? [i] : []))).toEqual(indexed);
  });

  it("the factory enables hooks, MEV modules and per-hook lockers with clanker-sdk's functions, events and errors", () => {
    for (const name of ["setHook", "setMevModule", "setLocker", "claimTeamFees"]) expectSameFunction("Clanker", sdk.factory, name);
    for (const name of ["SetHook", "SetMevModule", "SetLocker", "ClaimTeamFees"]) expectSameEvent("Clanker", sdk.factory, name);
    const errors = (abi: Abi) => abi.filter((i) => i.type === "error").map((i) => (i as { name: string }).name);
    for (const name of ["HookNotEnabled", "MevModuleNotEnabled", "LockerNotEnabled"]) {
      expect(errors(sdk.factory)).toContain(name);
      expect(errors(abiOf("Clanker"))).toContain(name);
    }
  });

  it("the LP locker has collectRewardsWithoutUnlock(address) as clanker-sdk does", () => {
    const [theirs] = functionsNamed(sdk.locker, "collectRewardsWithoutUnlock");
    expect(theirs).toBeDefined();
    expect(functionsNamed(abiOf("ClankerLpLocker"), "collectRewardsWithoutUnlock").map((f) => toFunctionSelector(f))).toEqual([toFunctionSelector(theirs!)]);
  });
});

/**
 * clanker-sdk ships no ABI of the V2 hooks, only the layouts of their `feeData` (what
 * `getDeployTransaction` encodes for `fees: { type: "static" }` and `{ type: "dynamic" }`): the
 * devnet hooks must read exactly those bytes, field for field.
 */
describe("the V2 hooks read clanker-sdk's fee data (static and dynamic)", () => {
  const sdkFeeData = async (fees: unknown): Promise<{ hook: string; feeData: Hex }> => {
    const tx = await new ClankerSdk().getDeployTransaction({
      chainId: 8453,
      name: "Fees",
      symbol: "FEES",
      tokenAdmin: SOME_ADDRESS,
      fees,
      rewards: { recipients: [{ admin: SOME_ADDRESS, recipient: SOME_ADDRESS, bps: 10_000, token: "Paired" }] },
    } as never);
    const poolConfig = (tx.args as unknown as [{ poolConfig: { hook: string; poolData: Hex } }])[0].poolConfig;
    const [outer] = decodeAbiParameters(
      [
        {
          type: "tuple",
          components: [
            { name: "extension", type: "address" },
            { name: "extensionData", type: "bytes" },
            { name: "feeData", type: "bytes" },
          ],
        },
      ],
      poolConfig.poolData,
    );
    return { hook: poolConfig.hook, feeData: outer.feeData };
  };
  /** Decodes `feeData` with the output type of a devnet hook view that returns its stored fee configuration. */
  const readAs = (contract: string, view: string, feeData: Hex) => {
    const [fn] = functionsNamed(abiOf(contract), view);
    expect(fn, `${contract}.${view}`).toBeDefined();
    const tuple = fn!.outputs[0]! as AbiParameter & { components: readonly AbiParameter[] };
    return decodeAbiParameters(tuple.components, feeData);
  };

  it("static: (uint24 clankerFee, uint24 pairedFee) in pips, as ClankerHookStaticFeeV2.poolFees reads it", async () => {
    const { hook, feeData } = await sdkFeeData({ type: "static", clankerFee: 500, pairedFee: 125 });
    expect(hook).toBe("0xb429d62f8f3bFFb98CdB9569533eA23bF0Ba28CC");
    expect(readAs("ClankerHookStaticFeeV2", "poolFees", feeData)).toEqual([50_000, 12_500]);
  });

  it("dynamic: PoolDynamicConfigVars, as ClankerHookDynamicFeeV2.poolConfigVars reads it", async () => {
    const { hook, feeData } = await sdkFeeData({
      type: "dynamic",
      baseFee: 100,
      maxFee: 500,
      referenceTickFilterPeriod: 30,
      resetPeriod: 120,
      resetTickFilter: 200,
      feeControlNumerator: 500_000_000,
      decayFilterBps: 7_500,
    });
    expect(hook).toBe("0xd60D6B218116cFd801E28F78d011a203D2b068Cc");
    expect(readAs("ClankerHookDynamicFeeV2", "poolConfigVars", feeData)).toEqual([10_000, 50_000, 30n, 120n, 200, 500_000_000n, 7_500]);
    const names = (functionsNamed(abiOf("ClankerHookDynamicFeeV2"), "poolConfigVars")[0]!.outputs[0] as { components: readonly AbiParameter[] }).components.map(
      (p) => p.name,
    );
    expect(names).toEqual(["baseFee", "maxLpFee", "referenceTickFilterPeriod", "resetPeriod", "resetTickFilter", "feeControlNumerator", "decayFilterBps"]);
  });

  it("both hooks carry Base's V2 permission bits in their mined addresses' low 14 bits (0x28CC)", () => {
    for (const base of ["0xb429d62f8f3bFFb98CdB9569533eA23bF0Ba28CC", "0xd60D6B218116cFd801E28F78d011a203D2b068Cc"])
      expect(BigInt(base) & 0x3fffn).toBe(0x28ccn);
    for (const contract of ["ClankerHookStaticFeeV2", "ClankerHookDynamicFeeV2"]) {
      expect(functionsNamed(abiOf(contract), "PERMISSIONS")).toHaveLength(1);
    }
  });
});

describe("Clanker token (clanker-sdk ClankerToken_v4_abi)", () => {
  it.each([
    "admin",
    "originalAdmin",
    "updateAdmin",
    "updateImage",
    "updateMetadata",
    "verify",
    "isVerified",
    "imageUrl",
    "metadata",
    "context",
    "allData",
    "burn",
    "burnFrom",
    "permit",
    "nonces",
    "DOMAIN_SEPARATOR",
    "eip712Domain",
    "decimals",
    "totalSupply",
  ])("function %s", (name) => {
    expectSameFunction("ClankerToken", sdk.token, name);
  });

  it.each(["Transfer", "Approval", "UpdateAdmin", "UpdateImage", "UpdateMetadata", "Verified", "EIP712DomainChanged"])("event %s", (name) => {
    expectSameEvent("ClankerToken", sdk.token, name);
  });
});

describe("LP locker (ClankerLpLockerFeeConversion, clanker-sdk ClankerLocker_v4_abi)", () => {
  it.each([
    "collectRewards",
    "tokenRewards",
    "feePreferences",
    "updateRewardRecipient",
    "updateRewardAdmin",
    "updateFeePreference",
    "placeLiquidity",
    "feeLocker",
    "poolManager",
    "positionManager",
    "permit2",
    "factory",
    "version",
    "BASIS_POINTS",
    "MAX_LP_POSITIONS",
    "MAX_REWARD_PARTICIPANTS",
  ])("function %s", (name) => {
    expectSameFunction("ClankerLpLocker", sdk.locker, name);
  });

  it.each([
    "TokenRewardAdded",
    "InitialFeePreferences",
    "ClaimedRewards",
    "FeesSwapped",
    "RewardRecipientUpdated",
    "RewardAdminUpdated",
    "FeePreferenceUpdated",
    "Received",
  ])("event %s", (name) => {
    expectSameEvent("ClankerLpLocker", sdk.locker, name);
  });

  it("matches the selectors and topics pinned in protocols.md", () => {
    expect(expectSameFunction("ClankerLpLocker", sdk.locker, "collectRewards")).toBe("0x5763dbd0");
    expect(expectSameFunction("ClankerLpLocker", sdk.locker, "tokenRewards")).toBe("0x30bd3eeb");
    const topics: Record<string, Hex> = {
      TokenRewardAdded: "0xc9b03d1b68674b3ca5738b69c14e4dbcfcb7f474303edd540b1d7dfa785d27ff",
      InitialFeePreferences: "0xbaec34d3ecbf576ff529cb3cb8de8cbe0f27bb44d90d526a5c1ff0cd4b994636",
      ClaimedRewards: "0x21d15f71483b597e8f0009e83b90b2117f6f98c185d7173857dddcae5eb8546a",
      FeesSwapped: "0x23343a6790738af38828776c97bce0b0e588477ee38355a02b38253108703d9b",
    };
    for (const [name, topic] of Object.entries(topics)) {
      expect(toEventSelector(eventNamed(abiOf("ClankerLpLocker"), name)), name).toBe(topic);
    }
  });

  it("tokenRewards returns the TokenRewardInfo tuple in production order", () => {
    const [output] = ourFunction("ClankerLpLocker", "0x30bd3eeb").outputs;
    expect(canonicalType(output!)).toBe("(address,(address,address,uint24,int24,address),uint256,uint256,uint16[],address[],address[])");
  });
});

describe("fee locker (ClankerFeeLocker, clanker-sdk ClankerFeeLocker_abi)", () => {
  it.each(["storeFees", "claim", "availableFees", "feesToClaim", "addDepositor", "allowedDepositors"])("function %s", (name) => {
    expectSameFunction("ClankerFeeLocker", sdk.feeLocker, name);
  });

  it.each(["StoreTokens", "ClaimTokens", "ClaimTokensPermissioned", "AddDepositor"])("event %s", (name) => {
    expectSameEvent("ClankerFeeLocker", sdk.feeLocker, name);
  });

  it("matches the selectors and topics pinned in protocols.md", () => {
    expect(expectSameFunction("ClankerFeeLocker", sdk.feeLocker, "availableFees")).toBe("0x8296535a");
    expect(expectSameFunction("ClankerFeeLocker", sdk.feeLocker, "claim")).toBe("0x21c0b342");
    expect(expectSameEvent("ClankerFeeLocker", sdk.feeLocker, "StoreTokens")).toBe("0xadf5da7301d0edbace5767201c524369b56f4040e2eafc873897493fc466e35d");
    expect(expectSameEvent("ClankerFeeLocker", sdk.feeLocker, "ClaimTokens")).toBe("0xf98eaa9c1f790e5c18b1f227bd5bade62600f9f3e3587c7644b90c50b9bf13c5");
  });
});

const TRADE_TUPLE = "(address,uint256,uint256,uint256,uint256,uint256,bool,uint256,uint256,uint256,uint256)";

describe("Avantis v1 perps (protocols.md §4)", () => {
  it.each([
    ["AvantisTrading", "0x19cde9a1", "openTrade", `${TRADE_TUPLE},uint8,uint256`, "payable"],
    ["AvantisTrading", "0x2c3cbce4", "closeTradeMarket", "uint256,uint256,uint256", "payable"],
    ["AvantisTrading", "0xcd90b8a4", "updateMargin", "uint256,uint256,uint8,uint256,bytes[]", "payable"],
    ["AvantisTradingStorage", "0xa3a80ffe", "openTrades", "address,uint256,uint256", "view"],
    ["AvantisTradingStorage", "0x1c8636b4", "openTradesCount", "address,uint256", "view"],
  ] as const)("%s.%s is %s", (contract, selector, name, inputs, mutability) => {
    const fn = ourFunction(contract, selector);
    expect(fn.name).toBe(name);
    expect(fn.inputs.map(canonicalType).join(",")).toBe(inputs);
    expect(fn.stateMutability).toBe(mutability);
  });

  it("openTrades returns the Trade tuple; openTradesInfo the TradeInfo tuple", () => {
    expect(ourFunction("AvantisTradingStorage", "0xa3a80ffe").outputs.map(canonicalType)).toEqual([TRADE_TUPLE]);
    const [info] = functionsNamed(abiOf("AvantisTradingStorage"), "openTradesInfo");
    expect(info!.outputs.map(canonicalType)).toEqual(["(uint256,uint256,uint256,bool,uint256)"]);
  });

  it.each([
    ["firstEmptyTradeIndex", "address,uint256", "uint256"],
    ["maxTradesPerPair", "", "uint256"],
    ["pendingMarketOpenCount", "address,uint256", "uint256"],
    ["pendingMarketCloseCount", "address,uint256", "uint256"],
    ["pendingOrderIdsCount", "address", "uint256"],
    ["openLimitOrdersCount", "address,uint256", "uint256"],
    ["pairsCount", "", "uint256"],
    ["pairMinLevPosUSDC", "uint256", "uint256"],
    ["pairMinLeverage", "uint256,bool", "uint256"],
    ["pairMaxLeverage", "uint256,bool", "uint256"],
    ["callbacks", "", "address"],
    ["reqIDpendingMarketOrder", "uint256", `(${TRADE_TUPLE},uint256,uint256,uint256)`],
  ] as const)("storage view %s(%s) returns %s", (name, inputs, output) => {
    const [fn, ...rest] = functionsNamed(abiOf("AvantisTradingStorage"), name);
    expect(rest).toHaveLength(0);
    expect(fn!.inputs.map(canonicalType).join(",")).toBe(inputs);
    expect(fn!.outputs.map(canonicalType).join(",")).toBe(output);
  });

  it("keeper entry points keep the production signatures", () => {
    const selectors = abiOf("AvantisTrading")
      .filter((item): item is AbiFunction => item.type === "function")
      .map((item) => toFunctionSelector(item));
    expect(selectors).toContain(toFunctionSelector("function executeMarketOrders(uint256[],bytes[])"));
    expect(selectors).toContain(toFunctionSelector("function executeLimitOrder(uint8,address,uint256,uint256,bytes[])"));
  });

  it.each([
    ["MarketOrderInitiated", "0x9d20fe25d5b18ddf053eb042d606b6f438ec532c9978753d5284b6128063a1bd", [0]],
    ["MarginUpdated", "0x48452067591e9581b9c1f3135e16ae22829a7c8afc6b3d6a1afa2cd295cc1133", [0]],
    ["MarketExecuted", "0x5c00d8b4c6c92b4922d1bd61ef722ec9a29169acb95d956676b07be6a6643eea", []],
    ["LimitExecuted", "0xbf3d234454deff88435a11abb8501124ff9e6923fd2fdfc730d83474b6ffbe2c", []],
  ] as const)("event %s has topic %s", (name, topic, indexed) => {
    const event = eventNamed(abiOf("AvantisTrading"), name);
    expect(toEventSelector(event)).toBe(topic);
    expect(event.inputs.flatMap((input, i) => (input.indexed ? [i] : []))).toEqual(indexed);
  });

  it("MarketOpenCanceled matches the pinned topic prefix", () => {
    const event = eventNamed(abiOf("AvantisTrading"), "MarketOpenCanceled");
    expect(toEventSelector(event).startsWith("0x4b2ef4d8")).toBe(true);
    expect(eventShape(event)).toEqual(["uint256", "address indexed", "uint256"]);
  });
});

describe("Uniswap v4 PoolManager events (v4-core artifact vs protocols.md §5.2)", () => {
  const poolManager = () => (require("@uniswap/v4-core/out/PoolManager.sol/PoolManager.json") as { abi: Abi }).abi;

  it.each([
    ["Initialize", "0xdd466e674ea557f56295e2d0218a125ea4b4f0f6f3307b95f85e6110838d6438"],
    ["Swap", "0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f"],
    ["ModifyLiquidity", "0xf208f4912782fd25c7f114ca3723a2d5dd6f3bcc3ac8db5af63baa85f711d5ec"],
  ])("%s topic is %s", (name, topic) => {
    expect(toEventSelector(eventNamed(poolManager(), name))).toBe(topic);
  });
});

describe("ProtocolRegistry (this project's contract)", () => {
  it.each([
    ["TokenEnrolled", "address indexed,address indexed,uint16,uint16,uint16,uint16,bytes32"],
    ["TokenActiveSet", "address indexed,bool"],
    ["TokenHaltedSet", "address indexed,bool"],
    ["OperatorChanged", "address indexed,address indexed"],
  ])("event %s(%s)", (name, shape) => {
    expect(eventShape(eventNamed(abiOf("ProtocolRegistry"), name)).join(",")).toBe(shape);
  });

  it.each([
    ["enroll", "address,address,uint16,uint16,uint16,bytes32", ""],
    ["setActive", "address,bool", ""],
    ["setHalted", "address,bool", ""],
    ["setOperator", "address", ""],
    ["enrollment", "address", "address,uint16,uint16,uint16,uint16,bytes32,bool,bool,uint256"],
    ["isEnrolled", "address", "bool"],
    ["enrolledCount", "", "uint256"],
    ["enrolledAt", "uint256", "address"],
    ["operator", "", "address"],
    ["PROTOCOL_BPS", "", "uint16"],
  ])("function %s(%s) returns (%s)", (name, inputs, outputs) => {
    const [fn, ...rest] = functionsNamed(abiOf("ProtocolRegistry"), name);
    expect(rest).toHaveLength(0);
    expect(fn!.inputs.map(canonicalType).join(",")).toBe(inputs);
    expect(fn!.outputs.map(canonicalType).join(",")).toBe(outputs);
  });
});

// ---------------------------------------------------------------- the service's own ABIs (common/abis)

type Item = AbiFunction | AbiEvent;
const itemsOf = (abi: Abi) => abi.filter((item): item is Item => item.type === "function" || item.type === "event");
const idOf = (item: Item) => (item.type === "function" ? toFunctionSelector(item) : toEventSelector(item));
const indexedOf = (event: AbiEvent) => event.inputs.flatMap((input, i) => (input.indexed ? [i] : []));
const mutability = (f: AbiFunction) => (f.stateMutability === "pure" ? "view" : f.stateMutability);
const uniswapAbi = (path: string) => (require(path) as { abi: Abi }).abi;

/** The production ABIs of common/abis that the indexer and engine use, by export name. */
const serviceAbis = Object.entries(productionAbis).flatMap(([name, value]) =>
  Array.isArray(value) && itemsOf(value as unknown as Abi).length > 0 ? [[name, value as unknown as Abi] as const] : [],
);

describe("common/abis Clanker items equal clanker-sdk's", () => {
  const sdkAbi = (name: string) => ({ clankerFactoryAbi: sdk.factory, clankerLpLockerAbi: sdk.locker, clankerFeeLockerAbi: sdk.feeLocker })[name]!;
  const cases = ["clankerFactoryAbi", "clankerLpLockerAbi", "clankerFeeLockerAbi"].flatMap((name) =>
    itemsOf(productionAbis[name as keyof typeof productionAbis] as unknown as Abi).map((item) => [name, item.type, item.name, item] as const),
  );

  it.each(cases)("%s %s %s", (name, _type, _name, item) => {
    const theirs = itemsOf(sdkAbi(name)).filter((other) => other.type === item.type && idOf(other) === idOf(item));
    expect(theirs, `clanker-sdk has ${item.type} ${item.name} with the same ${item.type === "function" ? "selector" : "topic"}`).toHaveLength(1);
    const other = theirs[0]!;
    expect(other.name).toBe(item.name);
    if (item.type === "function") {
      const f = other as AbiFunction;
      expect(item.outputs.map(canonicalType)).toEqual(f.outputs.map(canonicalType));
      expect(mutability(item)).toBe(mutability(f));
    } else {
      expect(eventShape(item)).toEqual(eventShape(other as AbiEvent));
      expect(item.inputs.map((i) => i.name)).toEqual((other as AbiEvent).inputs.map((i) => i.name));
    }
  });
});

/** protocols.md §4: pinned selectors/topics (full or prefix) or the documented signature, and indexed inputs. */
const PERPS_REFERENCE: Record<string, { id?: Hex; signature?: string; indexed?: number[] }> = {
  openTrade: { id: "0x19cde9a1" },
  closeTradeMarket: { id: "0x2c3cbce4" },
  updateMargin: { id: "0xcd90b8a4" },
  openTrades: { id: "0xa3a80ffe" },
  openTradesCount: { id: "0x1c8636b4" },
  maxTradesPerPair: { signature: "maxTradesPerPair()" },
  pairsCount: { signature: "pairsCount()" },
  pairMinLevPosUSDC: { signature: "pairMinLevPosUSDC(uint256)" },
  pairMinLeverage: { signature: "pairMinLeverage(uint256,bool)" },
  pairMaxLeverage: { signature: "pairMaxLeverage(uint256,bool)" },
  pendingMarketOpenCount: { signature: "pendingMarketOpenCount(address,uint256)" },
  pendingMarketCloseCount: { signature: "pendingMarketCloseCount(address,uint256)" },
  pendingOrderIdsCount: { signature: "pendingOrderIdsCount(address)" },
  openLimitOrdersCount: { signature: "openLimitOrdersCount(address,uint256)" },
  firstEmptyTradeIndex: { signature: "firstEmptyTradeIndex(address,uint256)" },
  openTradesInfo: { signature: "openTradesInfo(address,uint256,uint256)" },
  callbacks: { signature: "callbacks()" },
  MarketOrderInitiated: { id: "0x9d20fe25d5b18ddf053eb042d606b6f438ec532c9978753d5284b6128063a1bd", indexed: [0] },
  MarginUpdated: { id: "0x48452067591e9581b9c1f3135e16ae22829a7c8afc6b3d6a1afa2cd295cc1133", indexed: [0] },
  MarketExecuted: { id: "0x5c00d8b4c6c92b4922d1bd61ef722ec9a29169acb95d956676b07be6a6643eea", indexed: [] },
  LimitExecuted: { id: "0xbf3d234454deff88435a11abb8501124ff9e6923fd2fdfc730d83474b6ffbe2c", indexed: [] },
  MarketOpenCanceled: { id: "0x4b2ef4d8", indexed: [1] },
};

describe("common/abis perps items match protocols.md", () => {
  const cases = ["perpsTradingAbi", "perpsCallbacksAbi", "perpsStorageAbi"].flatMap((name) =>
    itemsOf(productionAbis[name as keyof typeof productionAbis] as unknown as Abi).map((item) => [name, item.type, item.name, item] as const),
  );

  it.each(cases)("%s %s %s", (_abi, _type, name, item) => {
    const reference = PERPS_REFERENCE[name];
    expect(reference, `protocols.md value of ${name} is listed in this test`).toBeDefined();
    if (reference!.id) expect(idOf(item).startsWith(reference!.id)).toBe(true);
    if (reference!.signature) expect(idOf(item)).toBe(toFunctionSelector(`function ${reference!.signature}`));
    if (item.type === "event") expect(indexedOf(item)).toEqual(reference!.indexed);
  });
});

describe("the devnet contracts implement every item of common/abis", () => {
  /** Where each production ABI is served on the devnet. */
  const DEVNET: Record<string, () => Abi[]> = {
    clankerFactoryAbi: () => [abiOf("Clanker")],
    clankerTeamFeesAbi: () => [abiOf("Clanker")],
    clankerLpLockerAbi: () => [abiOf("ClankerLpLocker")],
    clankerFeeLockerAbi: () => [abiOf("ClankerFeeLocker")],
    clankerHookAbi: () => [abiOf("ClankerHookStaticFeeV2"), abiOf("ClankerHookDynamicFeeV2")],
    clankerTokenEventsAbi: () => [abiOf("ClankerToken")],
    sniperAuctionAbi: () => [abiOf("ClankerSniperAuctionV2")],
    perpsTradingAbi: () => [abiOf("AvantisTrading")],
    perpsCallbacksAbi: () => [abiOf("AvantisTrading")], // the devnet exchange is its own callbacks contract
    perpsStorageAbi: () => [abiOf("AvantisTradingStorage")],
    registryAbi: () => [abiOf("ProtocolRegistry")],
    poolManagerAbi: () => [uniswapAbi("@uniswap/v4-core/out/PoolManager.sol/PoolManager.json")],
    v3PoolEventsAbi: () => [uniswapAbi("@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json")],
    transferEventAbi: () => [abiOf("ClankerToken"), abiOf("DevnetUSDC"), abiOf("SecondaryAsset"), abiOf("WETH9")],
  };

  it("knows where every ABI of common/abis lives on the devnet", () => {
    expect(serviceAbis.map(([name]) => name).filter((name) => !DEVNET[name])).toEqual([]);
  });

  const cases = serviceAbis.flatMap(([name, abi]) => itemsOf(abi).map((item) => [name, item.type, item.name, item] as const));
  it.each(cases)("%s %s %s", (name, _type, _name, item) => {
    for (const contract of DEVNET[name]?.() ?? []) {
      const matches = itemsOf(contract).filter((other) => other.type === item.type && idOf(other) === idOf(item));
      expect(matches, `${item.type} ${item.name} (${idOf(item)}) is on the devnet contract`).toHaveLength(1);
      const ours = matches[0]!;
      if (item.type === "function") {
        expect((ours as AbiFunction).outputs.map(canonicalType), `${item.name} outputs`).toEqual(item.outputs.map(canonicalType));
        expect(mutability(ours as AbiFunction), `${item.name} mutability`).toBe(mutability(item));
      } else {
        expect(indexedOf(ours as AbiEvent), `${item.name} indexed inputs`).toEqual(indexedOf(item));
      }
    }
  });
});
