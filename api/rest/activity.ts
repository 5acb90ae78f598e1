/** GET /activity: the feed, newest first, filtered by kind and token. */
import type { ActivityKind } from "../../common/activity.js";
import { type ActivityRow, formatActivityData, listActivity } from "../read/activity.js";
import { checksumOrNull, isoTime } from "../read/format.js";
import { listBody } from "../read/keyset.js";
import { defineRoute, respond } from "./route.js";
import { activityQuery, activityResponse } from "./schemas.js";

export const activityJson = (row: ActivityRow, usdc: string | undefined) => ({
  id: row.id,
  kind: row.kind as ActivityKind,
  token: checksumOrNull(row.token),
  txHash: row.txHash,
  blockNumber: Number(row.blockNumber),
  timestamp: isoTime(row.timestamp),
  data: formatActivityData(row.kind as ActivityKind, row.data, usdc),
});

export const activityRoute = defineRoute({
  method: "get",
  path: "/activity",
  tag: "activity",
  summary: "Recent protocol activity, newest first",
  query: activityQuery,
  responses: { 200: { description: "A page of activity", schema: activityResponse } },
  handler: async (c, { query }, deps) => {
    const page = await listActivity(deps.db, {
      filter: { kinds: query.kind, token: query.token },
      limit: query.limit,
      after: query.cursor,
      engine: deps.engine,
    });
    return respond(
      c,
      activityResponse,
      listBody(page, (row) => activityJson(row, deps.config.contracts.usdc)),
    );
  },
});
