/**
 * The public views (api/views/): each surface's shape of a resource is the view's. The item
 * schema, the JSON of a row, the export's columns and GraphQL's object fields all carry the
 * view's fields under the view's names. The values themselves are compared surface against
 * surface on the seeded devnet (test/api/seeded/export.ts, test/api/mcp.test.ts).
 */
// The CommonJS build of graphql-js: the copy Pothos builds the schema with under vitest.
import type { GraphQLObjectType } from "graphql/index.js";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { schema } from "../../api/graphql/index.js";
import { DATASETS } from "../../api/read/export.js";
import { burnSchema, burnView } from "../../api/views/burn.js";
import { buybackSchema, buybackView } from "../../api/views/buyback.js";
import { deskSchema, deskView } from "../../api/views/desk.js";
import { legsJson, legsSchema, legsView } from "../../api/views/legs.js";
import { feeCurrencyJson, feeCurrencySchema, feeCurrencyView, spendJson, spendSchema, spendView } from "../../api/views/fees.js";
import { type ViewFields, viewCurrencies, viewJson, viewKeys } from "../../api/views/view.js";
import { poolJson, poolSchema, poolView, tokenTotalsJson, tokenTotalsView, tokenView } from "../../api/views/token.js";
import { statsViews } from "../../api/views/stats.js";
import type { PoolRow } from "../../api/read/tokens.js";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..", "..");

const row = {
  id: "0xabc-3",
  token: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984",
  kind: "organic",
  from: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
  txFrom: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
  amount: 1_500_000_000_000_000_001n,
  txHash: `0x${"ab".repeat(32)}`,
  blockNumber: 12_345n,
  logIndex: 3,
  timestamp: 1_700_000_000n,
};

describe("the burn view", () => {
  it("writes a row as its schema says: checksummed addresses, an exact decimal beside the raw units, numbers, ISO time", () => {
    const json = viewJson(burnView, row);
    expect(burnSchema.parse(json)).toEqual(json);
    expect(Object.keys(json)).toEqual(viewKeys(burnView));
    expect(json).toMatchObject({
      token: getAddress(row.token),
      amount: "1.500000000000000001",
      amountRaw: "1500000000000000001",
      blockNumber: 12345,
      logIndex: 3,
      timestamp: "2023-11-14T22:13:20.000Z",
    });
  });

  it("is the export's columns, in order, then the cursor", () => {
    expect(DATASETS.burns.columns).toEqual([...viewKeys(burnView), "cursor"]);
  });

  it("is GraphQL's Burn: every field under its GraphQL name, with its description", () => {
    const burn = schema.getType("Burn") as GraphQLObjectType;
    const fields = burn.getFields();
    for (const [name, field] of Object.entries(burnView.fields as ViewFields)) {
      const key = field.graphqlName ?? name;
      expect(fields[key]?.description, key).toContain(field.description);
      if (field.kind === "amount") expect(fields[`${key}Raw`]?.type.toString(), `${key}Raw`).toBe("BigInt!");
    }
    expect(fields.blockNumber?.type.toString()).toBe("BigInt!");
    expect(fields.timestamp?.type.toString()).toBe("DateTime!");
    expect(fields.kind?.type.toString()).toBe("BurnKind!");
  });
});

describe("the buyback view", () => {
  const usdc = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
  const weth = "0x4200000000000000000000000000000000000006";
  const currencies = new Map([
    [usdc, { address: getAddress(usdc), symbol: "USDC", decimals: 6 }],
    [weth, { address: getAddress(weth), symbol: "WETH", decimals: 18 }],
  ]);
  const buyback = {
    id: "0xabc-7",
    token: row.token,
    kind: "creator-buyback",
    usdcIn: 2_500_000n,
    pairedIn: 2_500_000n,
    pairedCurrency: usdc,
    spentCurrency: weth,
    spent: 1_000_000_000_000_000n,
    tokensBought: 10n ** 18n,
    tokensBurned: 10n ** 18n,
    txHash: row.txHash,
    blockNumber: 99n,
    logIndex: 7,
    timestamp: row.timestamp,
  };

  it("writes each amount in its row's currency, and that currency's symbol", () => {
    expect(viewCurrencies(buybackView, [buyback]).sort()).toEqual([usdc, weth].sort());
    const json = viewJson(buybackView, buyback, currencies);
    expect(buybackSchema.parse(json)).toEqual(json);
    expect(json).toMatchObject({
      usdcIn: "2.5",
      pairedIn: "2.5",
      spentCurrency: getAddress(weth),
      spentSymbol: "WETH",
      spent: "0.001",
      spentRaw: "1000000000000000",
    });
    // No paired currency (a token without a pool): 18 decimals, as every surface writes it.
    const noPool = { ...buyback, pairedCurrency: null };
    expect(viewJson(buybackView, noPool, currencies).pairedIn).toBe("0.0000000000025");
    expect(() => viewJson(buybackView, buyback)).toThrow(/no currency info/);
  });

  it("is the export's columns, in order, then the cursor", () => {
    expect(DATASETS.buybacks.columns).toEqual([...viewKeys(buybackView), "cursor"]);
  });
});

describe("the desk view", () => {
  const desk = {
    id: "t-1",
    token: null,
    venue: "gains-v10",
    protocol: "Gains Network gTrade v10",
    pairIndex: 1n,
    tradeIndex: 0n,
    status: "closed",
    halted: false,
    haltReason: null,
    side: "short",
    collateral: 20_000_000n,
    leverage: 50_000_000_000n,
    notional: 100_000_000n,
    entryPrice: 31_234_500_000_000n,
    markPrice: null,
    liquidationPrice: null,
    unrealisedPnl: null,
    realisedPnl: -1_250_000n,
    usdcReturned: 18_750_000n,
    openedAt: row.timestamp,
    closedAt: null,
    openTx: row.txHash,
  };

  it("writes nulls as null (an amount's raw units with it), booleans as booleans, 1e10 figures as exact decimals", () => {
    const json = viewJson(deskView, desk);
    expect(deskSchema.parse(json)).toEqual(json);
    expect(json).toMatchObject({
      token: null,
      halted: false,
      haltReason: null,
      leverage: "5",
      leverageRaw: "50000000000",
      entryPrice: "3123.45",
      markPrice: null,
      markPriceRaw: null,
      realisedPnl: "-1.25",
      closedAt: null,
      pairIndex: 1,
    });
  });

  it("is GraphQL's Desk: nullable where the view says, the venue a String, the side and status enums", () => {
    const fields = (schema.getType("Desk") as GraphQLObjectType).getFields();
    expect(fields.tokenAddress?.type.toString()).toBe("String");
    expect(fields.markPriceRaw?.type.toString()).toBe("BigInt");
    expect(fields.halted?.type.toString()).toBe("Boolean!");
    expect(fields.venue?.type.toString()).toBe("String!");
    expect(fields.side?.type.toString()).toBe("DeskSide!");
    expect(fields.closedAt?.type.toString()).toBe("DateTime");
  });
});

describe("the fee-currency and currency-spend views", () => {
  const weth = { address: getAddress("0x4200000000000000000000000000000000000006"), symbol: "WETH", decimals: 18 };
  const fees = {
    currency: weth,
    toOperator: 1_500_000_000_000_000_001n,
    claimed: 1_000_000_000_000_000_000n,
    unclaimed: 500_000_000_000_000_001n,
    awaitingConversion: 0n,
    converted: 1_000_000_000_000_000_000n,
    usdc: 3_123_450_000n,
    usdcPerUnit: null,
    toCreator: 2n,
  };

  it("writes each amount in the row's own currency (its facts carried by the row), USDC in 6 decimals", () => {
    const json = feeCurrencyJson(fees);
    expect(feeCurrencySchema.parse(json)).toEqual(json);
    expect(json).toMatchObject({
      currency: weth.address,
      symbol: "WETH",
      decimals: 18,
      toOperator: "1.500000000000000001",
      toOperatorRaw: "1500000000000000001",
      toCreator: "0.000000000000000002",
      usdc: "3123.45",
      usdcPerUnit: null,
      usdcPerUnitRaw: null,
    });
    const spend = spendJson({ currency: weth, buybacks: 2, amountIn: 10n ** 17n, usdc: 312_345_000n });
    expect(spendSchema.parse(spend)).toEqual(spend);
    expect(spend).toMatchObject({ symbol: "WETH", buybacks: 2, amount: "0.1", amountRaw: "100000000000000000", usdc: "312.345" });
  });

  it("are GraphQL's FeeCurrency and CurrencySpend, an amount with its raw units", () => {
    const fee = (schema.getType("FeeCurrency") as GraphQLObjectType).getFields();
    expect(Object.keys(fee).sort()).toEqual(viewKeys(feeCurrencyView).sort());
    expect(fee.usdcPerUnitRaw?.type.toString()).toBe("BigInt");
    expect(fee.toOperatorRaw?.type.toString()).toBe("BigInt!");
    const spend = (schema.getType("CurrencySpend") as GraphQLObjectType).getFields();
    expect(Object.keys(spend).sort()).toEqual(viewKeys(spendView).sort());
  });
});

describe("the legs view", () => {
  it("writes the five legs under REST's names, each an exact decimal beside its raw units", () => {
    const totals = { protocolLegUsdc: 5n, assetLegUsdc: 1_000_000n, perpLegUsdc: 2_500_001n, creatorLegUsdc: 0n, operatorLegUsdc: 7n };
    const json = legsJson((leg) => totals[leg]);
    expect(legsSchema.parse(json)).toEqual(json);
    expect(json).toEqual({
      protocolUsdc: "0.000005",
      protocolUsdcRaw: "5",
      assetUsdc: "1",
      assetUsdcRaw: "1000000",
      perpUsdc: "2.500001",
      perpUsdcRaw: "2500001",
      creatorUsdc: "0",
      creatorUsdcRaw: "0",
      operatorUsdc: "0.000007",
      operatorUsdcRaw: "7",
    });
  });

  it("is GraphQL's FeeLegs; Stats and TokenTotals keep the flat *LegUsdc names, deprecated in favour of legs", () => {
    const legs = (schema.getType("FeeLegs") as GraphQLObjectType).getFields();
    expect(Object.keys(legs).sort()).toEqual(viewKeys(legsView).sort());
    for (const type of ["Stats", "TokenTotals"]) {
      const fields = (schema.getType(type) as GraphQLObjectType).getFields();
      expect(fields.perpLegUsdc?.deprecationReason).toBe("Use legs.perpUsdc");
      expect(fields.perpLegUsdcRaw?.deprecationReason).toBe("Use legs.perpUsdc");
      expect(fields.legs?.type.toString()).toBe("FeeLegs!");
    }
  });
});

describe("the token, pool and totals views", () => {
  const pool: PoolRow = {
    poolId: `0x${"cd".repeat(32)}`,
    token: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984",
    pairedToken: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
    currency0: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984",
    currency1: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
    fee: 10_000,
    tickSpacing: 200,
    hooks: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
    sqrtPriceX96: 1_461_446_703_485_210_103_287_273_052_203_988_822_378_723_970_341n, // past 2^53: kept exact
    tick: -887_200,
    liquidity: 9_007_199_254_740_993n,
    pricePairedE18: 0n,
    priceUsdcE18: 1_234_567_000_000_000_000_000n,
    volumeToken: 10n ** 18n,
    volumePaired: 3n,
    clankerFee: 0,
    pairedFee: 0,
    protocolFees: 0n,
    swaps: 4,
    updatedAt: 1_700_000_000n,
  };

  it("writes a pool's uint160 and liquidity as exact digit strings, its price in USDC per whole token beside its raw units", () => {
    const json = poolJson(pool);
    expect(poolSchema.parse(json)).toEqual(json);
    expect(json).toMatchObject({
      pairedToken: getAddress(pool.pairedToken),
      sqrtPriceX96: "1461446703485210103287273052203988822378723970341",
      liquidity: "9007199254740993",
      priceUsdc: "0.001234567",
      priceUsdcRaw: "1234567000000000000000",
      volumeToken: "1",
      volumePairedRaw: "3",
      updatedAt: "2023-11-14T22:13:20.000Z",
    });
  });

  it("are GraphQL's Token, Pool and TokenTotals: every field under its name, the uints BigInt", () => {
    const fields = (type: string) => (schema.getType(type) as GraphQLObjectType).getFields();
    for (const [type, view] of [
      ["Token", tokenView],
      ["Pool", poolView],
      ["TokenTotals", tokenTotalsView],
    ] as const)
      for (const key of viewKeys(view)) expect(fields(type)[key], `${type}.${key}`).toBeDefined();
    expect(fields("Pool").sqrtPriceX96?.type.toString()).toBe("BigInt!");
    expect(fields("Token").createdBlock?.type.toString()).toBe("BigInt!");
  });

  it("give a token without totals zeros in REST", () => {
    expect(tokenTotalsJson(null)).toMatchObject({ feesToOperatorUsdc: "0", feesToOperatorUsdcRaw: "0", burns: 0, buybacks: 0 });
  });

  it("give every figure of /stats one GraphQL field, on Stats or DeskSummary, under its flat name", () => {
    for (const [group, view] of Object.entries(statsViews)) {
      const type = (schema.getType(group === "deskSummary" ? "DeskSummary" : "Stats") as GraphQLObjectType).getFields();
      for (const [name, f] of Object.entries(view.fields as ViewFields)) {
        const field = type[f.graphqlName ?? name];
        expect(field, `${group}.${name}`).toBeDefined();
        expect(field!.deprecationReason, `${group}.${name}`).toBeUndefined();
        if (f.kind === "amount") expect(type[`${f.graphqlName ?? name}Raw`], `${group}.${name}Raw`).toBeDefined();
      }
    }
  });
});

describe("REST answers", () => {
  it("every 2xx JSON answer goes through respond(), which the compiler checks against the route's schema; c.json() is left to error answers", () => {
    const dir = join(ROOT, "api", "rest");
    const untyped: string[] = [];
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "route.ts")) {
      const text = readFileSync(join(dir, name), "utf8");
      for (const m of text.matchAll(/c\.json\(([^;]*)/g)) {
        // An error answer names its status: 4xx or 5xx.
        if (!/,\s*[45]\d\d\b/.test(m[1]!)) untyped.push(`${name}: c.json(${m[1]!.slice(0, 60)}`);
      }
    }
    expect(untyped).toEqual([]);
    expect(readFileSync(join(dir, "market.ts"), "utf8")).toMatch(/respond\(c, burnsResponse,/);
  });
});
