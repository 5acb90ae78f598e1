/** `Desk`: a perps position of the operator for a token; the `desks` connection. */
import { type DeskStatus, listDesks } from "../read/desks.js";
import { deskView } from "../views/desk.js";
import { builder } from "./builder.js";
import { connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { DeskSideEnum, DeskStatusEnum } from "./enums.js";
import { addressArg, asUserErrors } from "./errors.js";
import { DeskRef, TokenRef } from "./refs.js";
import { viewFields } from "./view-fields.js";

DeskRef.implement({
  description: deskView.description,
  fields: (t) => ({
    ...viewFields(t, deskView, { side: DeskSideEnum, status: DeskStatusEnum }),
    token: t.field({
      type: TokenRef,
      nullable: true,
      description: "The token the engine opened it for",
      resolve: (d, _a, ctx) => (d.token ? ctx.loaders.token.load(d.token.toLowerCase() as `0x${string}`) : null),
    }),
  }),
});

builder.queryField("desks", (t) =>
  t.connection(
    {
      type: DeskRef,
      description: "Desks, newest first: filter by status (OPEN for the open ones), token and halt state.",
      args: {
        status: t.arg({ type: [DeskStatusEnum], required: false }),
        token: t.arg.string({ required: false }),
        halted: t.arg.boolean({ required: false }),
      },
      complexity: connectionComplexity,
      resolve: (_root, args, ctx) =>
        asUserErrors(async () => {
          const window = pageArgs(args);
          const deskCtx = await ctx.loaders.deskContext();
          const filter = {
            statuses: (args.status ?? undefined) as DeskStatus[] | undefined,
            token: args.token ? addressArg(args.token, "token") : undefined,
            halted: args.halted,
          };
          return toConnection(await listDesks(ctx.deps.db, deskCtx, { ...window, filter }));
        }),
    },
    { name: "DeskConnection" },
    { name: "DeskEdge" },
  ),
);
