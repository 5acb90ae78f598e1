/**
 * `Burn` and `Buyback`: each event table's object (its view's fields and a link to its token)
 * and its connection, at the root (`burns`, `buybacks`) and on a token, with filters (token,
 * kinds, block and time ranges), newest first by default.
 */
import type { FieldKind, ImplementableObjectRef } from "@pothos/core";
import type { Hex } from "viem";
import { listBurns } from "../read/burns.js";
import { listBuybacks } from "../read/buybacks.js";
import type { ReadDb } from "../read/db.js";
import type { EventFilter } from "../read/events.js";
import type { Page, PageWindow } from "../read/keyset.js";
import { burnView } from "../views/burn.js";
import { buybackView } from "../views/buyback.js";
import type { View } from "../views/view.js";
import { type Types, builder } from "./builder.js";
import { connectionComplexity } from "./connection.js";
import { BurnKindEnum, BuybackKindEnum, EventOrderEnum } from "./enums.js";
import { BurnFilterInput, BuybackFilterInput, eventConnection } from "./filters.js";
import { BurnConnection, BurnRef, BuybackConnection, BuybackRef, TokenRef } from "./refs.js";
import { viewFields } from "./view-fields.js";

type FieldBuilder<Parent, Kind extends FieldKind> = PothosSchemaTypes.RootFieldBuilder<Types, Parent, Kind>;

/**
 * An event table's object, implemented from its view, and its connection field: every token's
 * (at the root) or one token's (`tokenOf` gives the parent's token; `filter.token` is ignored).
 */
function eventResource<Row extends { token: string }, Order extends string>(o: {
  ref: ImplementableObjectRef<Types, Row>;
  connection: typeof BurnConnection | typeof BuybackConnection;
  view: View;
  kinds: typeof BurnKindEnum | typeof BuybackKindEnum;
  filter: typeof BurnFilterInput;
  list: (db: ReadDb, p: PageWindow & { filter: EventFilter; order: Order }) => Promise<Page<Row>>;
  tokenDescription: string;
}) {
  o.ref.implement({
    description: o.view.description,
    fields: (t) => ({
      ...viewFields(t, o.view, { kind: o.kinds }),
      token: t.field({ type: TokenRef, nullable: true, description: o.tokenDescription, resolve: (r, _a, ctx) => ctx.loaders.token.load(r.token as Hex) }),
    }),
  });
  const resolve = eventConnection(o.list);
  // Written once for both kinds of parent (the root and a token); Pothos's types cannot follow a generic kind.
  return <Parent, Kind extends FieldKind>(t: FieldBuilder<Parent, Kind>, description: string, tokenOf?: (parent: Parent) => Hex): never =>
    (t as unknown as PothosSchemaTypes.ObjectFieldBuilder<Types, Parent>).connection(
      {
        type: o.ref as unknown as typeof BurnRef,
        description,
        args: {
          filter: t.arg({ type: o.filter, required: false }),
          orderBy: t.arg({ type: EventOrderEnum, required: false, defaultValue: "NEWEST" }),
        },
        complexity: connectionComplexity,
        resolve: (parent, args, ctx) => resolve(ctx, args, tokenOf?.(parent)) as never,
      },
      o.connection as typeof BurnConnection,
    ) as never;
}

export const burnsField = eventResource({
  ref: BurnRef,
  connection: BurnConnection,
  view: burnView,
  kinds: BurnKindEnum,
  filter: BurnFilterInput,
  list: listBurns,
  tokenDescription: "The token burned",
});

export const buybacksField = eventResource({
  ref: BuybackRef,
  connection: BuybackConnection,
  view: buybackView,
  kinds: BuybackKindEnum,
  filter: BuybackFilterInput,
  list: listBuybacks,
  tokenDescription: "The token bought back",
});

const PAGE = "newest first by default. At most 200 a page.";
builder.queryField("burns", (t) => burnsField(t, `Burns with filters (token, kinds, block and time ranges), ${PAGE}`));
builder.queryField("buybacks", (t) => buybacksField(t, `Buybacks with filters (token, kinds, block and time ranges), ${PAGE}`));
