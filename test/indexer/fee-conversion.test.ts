/**
 * A conversion swap's USDC is divided among tokens by one rule (common/conversion.ts) that the
 * engine and the indexer both apply, each to the shares in the order it reads them: the
 * engine from a jsonb object it stored in PostgreSQL, the indexer from its queue. Every token
 * must get the same base units either way, so the indexed legs equal the ledger's allocations.
 */
import pg from "pg";
import { type Address, getAddress, keccak256, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { divideConversion, proRata } from "../../common/conversion.js";
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

/** The engine's division: shares stored as jsonb (engine/fees/weth.ts), read back, then divided. */
async function engineDivision(wethIn: bigint, usdcOut: bigint, weights: Map<Address, bigint>): Promise<Map<string, bigint>> {
  // As the engine builds it: tokens from the ledger, in SQL order, into an object.
  const stored = Object.fromEntries([...weights].map(([t, a]) => [t, a.toString()]));
  const { rows } = await client.query<{ shares: Record<string, string> }>("SELECT $1::jsonb AS shares", [JSON.stringify(stored)]);
  const back = Object.fromEntries(Object.entries(rows[0]!.shares).map(([t, a]) => [t, BigInt(a)]));
  const shares = divideConversion(
    wethIn,
    usdcOut,
    Object.entries(back).map(([token, amount]) => ({ token, amount })),
  );
  return new Map(shares.map((s) => [s.token.toLowerCase(), s.usdc]));
}

describe("fee conversion division", () => {
  it("gives each token the same USDC whichever order the shares are read in, remainder included", async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rand = randoms(seed);
      const n = 1 + Number(rand(6n));
      const weights = new Map<Address, bigint>();
      for (let i = 0; i < n; i++) weights.set(address(i, seed), 1n + rand(10n ** BigInt(12 + Number(rand(7n)))));
      const wethIn = [...weights.values()].reduce((a, b) => a + b, 0n);
      const usdcOut = 1n + rand(10n ** 10n);
      const expected = await engineDivision(wethIn, usdcOut, weights);
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

  it("proRata: shares sum to the total, follow the weights, and a zero weight gets nothing", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = randoms(seed);
      const n = 1 + Number(rand(8n));
      const weights = Array.from({ length: n }, (_, i) => ({ token: `k${i}`, amount: rand(3n) === 0n ? 0n : rand(10n ** 20n) }));
      const total = rand(10n ** 24n);
      const shares = proRata(total, weights);
      expect(shares.reduce((a, s) => a + s.amount, 0n)).toBe(total);
      expect(shares.every((s) => s.amount >= 0n)).toBe(true);
      if (weights.some((w) => w.amount > 0n)) {
        for (const [i, w] of weights.entries()) if (w.amount === 0n) expect(shares[i]!.amount).toBe(0n);
      }
    }
  });
});
