/**
 * The start of a buyback, protocol or creator: its row in `engine.buybacks` and the spend of
 * the leg that funds it, in one transaction, so a buyback row always carries its money.
 */
import type { Address } from "viem";
import { type Db, tables } from "../db/client.js";
import { type Currency, type Leg, PER_TOKEN_LEGS } from "./legs.js";
import { consumeLeg } from "./spend.js";

export type BuybackStart = {
  kind: "protocol" | "creator";
  /** The token bought back and burned. */
  token: Address;
  /** The leg that pays: pooled (protocol, legacy WETH) or the token's own (creator buyback queue). */
  leg: Leg;
  currency: Currency;
  amount: bigint;
  /** The newest final block: only final inflows are spent. */
  finalBlock: number;
};

/** Inserts the buyback row (status `swapping`) and spends `amount` from its leg as `spend:buyback:<id>`; returns the id. */
export async function startBuyback(db: Db, b: BuybackStart): Promise<number> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(tables.buybacks)
      .values({ kind: b.kind, token: b.token, currencyIn: b.currency, amountIn: b.amount.toString(), status: "swapping" })
      .returning({ id: tables.buybacks.id });
    const legToken = PER_TOKEN_LEGS.includes(b.leg) ? b.token : null;
    await consumeLeg(tx, {
      leg: b.leg,
      token: legToken,
      amount: b.amount,
      key: `spend:buyback:${row!.id}`,
      kind: "buyback-spend",
      currency: b.currency,
      finalBlock: b.finalBlock,
      data: { buybackId: row!.id },
    });
    return row!.id;
  });
}
