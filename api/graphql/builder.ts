/** The Pothos schema builder: one place for scalars and plugins. */
import SchemaBuilder from "@pothos/core";
import RelayPlugin from "@pothos/plugin-relay";

export const builder = new SchemaBuilder<{
  Scalars: {
    BigInt: { Input: bigint; Output: bigint };
  };
}>({
  plugins: [RelayPlugin],
  relay: { cursorType: "String" },
});

builder.scalarType("BigInt", {
  description: "An integer of any size, serialised as a decimal string (base units for money).",
  serialize: (value) => value.toString(),
  parseValue: (value) => {
    if (typeof value !== "string" && typeof value !== "number") throw new TypeError("BigInt must be a string or integer");
    if (typeof value === "string" && !/^-?\d+$/.test(value)) throw new TypeError("BigInt must be an integer string");
    return BigInt(value);
  },
});

builder.queryType({});
