/**
 * A conversion swap's USDC is divided among tokens exactly as the engine books it: the
 * engine stores each token's WETH in a jsonb object, reads it back from PostgreSQL and gives
 * `proRata(usdcOut, shares)` (the remainder to the last key it reads). The indexer's
 * `divideConversion` must give every token the same base units, so the indexed legs equal the
 * ledger's allocations.
 */
import pg from "pg";
import { type Address, getAddress, keccak256, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proRata as engineProRata } from "../../engine/decisions/split.js";
import { divideConversion } from "../../indexer/conversion.js";
import { createDatabase } from "../helpers/env.js";

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: await createDatabase("conversion") });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
});

/** Deterministic pseudo-random bigints. */
function randoms(seed: number) {
  let state = BigInt(seed) * 6364136223846793005n + 1442695040888963407n;
  return (max: bigint) => {
    state = (state * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
    return state % max;
  };
}

const address = (i: number, seed: number) => getAddress(keccak256(toHex(`token-${seed}-${i}`)).slice(0, 42)) as Address;

/** The engine's division: shares stored as jsonb (engine/fees/weth.ts), read back, divided pro rata. */
async function engineDivision(usdcOut: bigint, weights: Map<Address, bigint>): Promise<Map<string, bigint>> {
  // As the engine builds it: tokens from the ledger, in SQL order, into an object.
  const shares = Object.fromEntries([...weights].map(([t, a]) => [t, a.toString()]));
  const { rows } = await client.query<{ shares: Record<string, string> }>("SELECT $1::jsonb AS shares", [JSON.stringify(shares)]);
  const back = Object.fromEntries(Object.entries(rows[0]!.shares).map(([t, a]) => [t, BigInt(a)]));
  return new Map(Object.entries(engineProRata(usdcOut, back)).map(([t, a]) => [t.toLowerCase(), a]));
}

describe("fee conversion division", () => {
  it("gives each token the engine's USDC to the base unit, remainder included", async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rand = randoms(seed);
      const n = 1 + Number(rand(6n));
      const weights = new Map<Address, bigint>();
      for (let i = 0; i < n; i++) weights.set(address(i, seed), 1n + rand(10n ** BigInt(12 + Number(rand(7n)))));
      const wethIn = [...weights.values()].reduce((a, b) => a + b, 0n);
      const usdcOut = 1n + rand(10n ** 10n);
      const expected = await engineDivision(usdcOut, weights);
      // The indexer sees the tokens in its own queue order (here: reversed, lowercase).
      const awaiting = [...weights].reverse().map(([token, amount]) => ({ token: token.toLowerCase(), amount }));
      const shares = divideConversion(wethIn, usdcOut, awaiting);
      expect(shares.reduce((a, s) => a + s.usdc, 0n)).toBe(usdcOut);
      expect(new Map(shares.map((s) => [s.token, s.usdc])), `seed ${seed}`).toEqual(expected);
      expect(shares.every((s) => s.sold === weights.get(getAddress(s.token)))).toBe(true);
    }
  });

  it("a swap that sold less than what awaits conversion sells each token's pro-rata part", () => {
    const shares = divideConversion(600n, 1_000n, [
      { token: "0x00000000000000000000000000000000000000a1", amount: 300n },
      { token: "0x00000000000000000000000000000000000000b2", amount: 900n },
    ]);
    expect(shares.map((s) => s.sold)).toEqual([150n, 450n]);
    expect(shares.map((s) => s.usdc)).toEqual([250n, 750n]);
    expect(divideConversion(5n, 7n, [])).toEqual([]);
  });
});
