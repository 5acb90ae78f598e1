/** Filter inputs of burns and buybacks: token, kinds, block range (inclusive), time range [from, to). */
import type { EventFilter } from "../read/burns.js";
import { builder } from "./builder.js";
import { BurnKindEnum, BuybackKindEnum } from "./enums.js";
import { addressArg, userError } from "./errors.js";

const rangeFields = {
  fromBlock: { type: "BigInt", required: false, description: "First block (inclusive)" },
  toBlock: { type: "BigInt", required: false, description: "Last block (inclusive)" },
  from: { type: "DateTime", required: false, description: "From this time (inclusive)" },
  to: { type: "DateTime", required: false, description: "Before this time (exclusive)" },
} as const;

export const BurnFilterInput = builder.inputType("BurnFilter", {
  fields: (t) => ({
    token: t.string({ required: false, description: "Token address" }),
    kinds: t.field({ type: [BurnKindEnum], required: false }),
    fromBlock: t.field(rangeFields.fromBlock),
    toBlock: t.field(rangeFields.toBlock),
    from: t.field(rangeFields.from),
    to: t.field(rangeFields.to),
  }),
});

export const BuybackFilterInput = builder.inputType("BuybackFilter", {
  fields: (t) => ({
    token: t.string({ required: false, description: "Token address" }),
    kinds: t.field({ type: [BuybackKindEnum], required: false }),
    fromBlock: t.field(rangeFields.fromBlock),
    toBlock: t.field(rangeFields.toBlock),
    from: t.field(rangeFields.from),
    to: t.field(rangeFields.to),
  }),
});

type FilterArg = {
  token?: string | null;
  kinds?: readonly string[] | null;
  fromBlock?: bigint | null;
  toBlock?: bigint | null;
  from?: bigint | null;
  to?: bigint | null;
};

/** The read layer's filter; `token` (when given) overrides the filter's token. */
export function eventFilter(f: FilterArg | null | undefined, token?: `0x${string}`): EventFilter & { kinds?: readonly string[] } {
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
