/** Filter inputs of burns and buybacks (token, kinds, block range inclusive, time range [from, to)), and their connections' resolver. */
import type { Hex } from "viem";
import type { ReadDb } from "../read/db.js";
import type { EventFilter } from "../read/events.js";
import type { Page, PageWindow } from "../read/keyset.js";
import { type GraphqlContext, builder } from "./builder.js";
import { type ConnectionArgs, pageArgs, toConnection } from "./connection.js";
import { BurnKindEnum, BuybackKindEnum } from "./enums.js";
import { addressArg, asUserErrors, userError } from "./errors.js";

const rangeFields = {
  fromBlock: { type: "BigInt", required: false, description: "First block (inclusive)" },
  toBlock: { type: "BigInt", required: false, description: "Last block (inclusive)" },
  from: { type: "DateTime", required: false, description: "From this time (inclusive)" },
  to: { type: "DateTime", required: false, description: "Before this time (exclusive)" },
} as const;

/** An event table's filter input: its kinds' enum beside the token and the ranges. */
const eventFilterInput = (name: string, kinds: typeof BurnKindEnum | typeof BuybackKindEnum) =>
  builder.inputType(name, {
    fields: (t) => ({
      token: t.string({ required: false, description: "Token address" }),
      kinds: t.field({ type: [kinds], required: false }),
      fromBlock: t.field(rangeFields.fromBlock),
      toBlock: t.field(rangeFields.toBlock),
      from: t.field(rangeFields.from),
      to: t.field(rangeFields.to),
    }),
  });

export const BurnFilterInput = eventFilterInput("BurnFilter", BurnKindEnum);
export const BuybackFilterInput = eventFilterInput("BuybackFilter", BuybackKindEnum);

type FilterArg = {
  token?: string | null;
  kinds?: readonly string[] | null;
  fromBlock?: bigint | null;
  toBlock?: bigint | null;
  from?: bigint | null;
  to?: bigint | null;
};

/** The read layer's filter; `token` (when given) overrides the filter's token. */
export function eventFilter(f: FilterArg | null | undefined, token?: Hex): EventFilter {
  const filter = f ?? {};
  if (filter.kinds && filter.kinds.length === 0) throw userError("filter.kinds: give at least one kind, or leave it out");
  return {
    token: token ?? (filter.token ? addressArg(filter.token, "filter.token") : undefined),
    kinds: filter.kinds ?? undefined,
    fromBlock: filter.fromBlock ?? undefined,
    toBlock: filter.toBlock ?? undefined,
    fromTime: filter.from ?? undefined,
    toTime: filter.to ?? undefined,
  };
}

/** A connection's arguments over an event table: the window, the filter and the order. */
export type EventArgs = ConnectionArgs & { filter?: FilterArg | null; orderBy?: string | null };

/** The resolver of an event connection (burns, buybacks) over its read layer's `list`; `token` fixes the token (a token's own field). */
export function eventConnection<Order extends string, Row>(list: (db: ReadDb, p: PageWindow & { filter: EventFilter; order: Order }) => Promise<Page<Row>>) {
  return (ctx: GraphqlContext, args: EventArgs, token?: Hex) =>
    asUserErrors(async () =>
      toConnection(await list(ctx.deps.db, { filter: eventFilter(args.filter, token), order: (args.orderBy ?? "NEWEST") as Order, ...pageArgs(args) })),
    );
}
