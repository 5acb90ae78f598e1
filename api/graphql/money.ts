/** Money fields: an exact decimal string in whole units beside the raw integer in base units. */
import { formatDecimal } from "../../common/money.js";
import type { Types } from "./builder.js";
type FieldBuilder<Row> = PothosSchemaTypes.ObjectFieldBuilder<Types, Row>;

/**
 * `<name>` (decimal string) and `<name>Raw` (BigInt base units). `deprecationReason`: a name kept
 * for existing clients, both fields marked deprecated.
 */
export function moneyFields<Row, Name extends string>(
  t: FieldBuilder<Row>,
  name: Name,
  decimals: number,
  get: (row: Row) => bigint,
  description: string,
  deprecationReason?: string,
) {
  return {
    [name]: t.string({ description: `${description} (exact decimal, whole units)`, deprecationReason, resolve: (row) => formatDecimal(get(row), decimals) }),
    [`${name}Raw`]: t.field({
      type: "BigInt",
      description: `${description} (base units, ${decimals} decimals)`,
      deprecationReason,
      resolve: (row) => get(row),
    }),
  } as Record<Name | `${Name}Raw`, ReturnType<FieldBuilder<Row>["string"]>>;
}

/** As `moneyFields`, for an amount that may be unknown. */
export function optionalMoneyFields<Row, Name extends string>(
  t: FieldBuilder<Row>,
  name: Name,
  decimals: number,
  get: (row: Row) => bigint | null,
  description: string,
) {
  return {
    [name]: t.string({
      nullable: true,
      description: `${description} (exact decimal, whole units)`,
      resolve: (row) => {
        const v = get(row);
        return v === null ? null : formatDecimal(v, decimals);
      },
    }),
    [`${name}Raw`]: t.field({ type: "BigInt", nullable: true, description: `${description} (base units, ${decimals} decimals)`, resolve: (row) => get(row) }),
  } as Record<Name | `${Name}Raw`, ReturnType<FieldBuilder<Row>["string"]>>;
}
