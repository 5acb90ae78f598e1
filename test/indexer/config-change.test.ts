/**
 * A Base operator's restart with a changed configuration: after the protocol token is launched,
 * `PROTOCOL_TOKEN_ADDRESS` is set and the indexer restarted. ponder refuses a schema another
 * build wrote ("previously used by a different Ponder app", for good), so the schema is named
 * after the indexed configuration too: the restart indexes into a fresh schema, keeps running,
 * and the views schema reads the previous index until the new one is ready.
 */
import pg from "pg";
import type { Address } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { VIEWS_SCHEMA } from "../../common/constants.js";
import { type PonderHandle, ponderSchemaName, publishedSchema, startPonder, waitForIndexed, waitForReady } from "../../devnet/ponder.js";
import { createDatabase, serviceEnv, testConfig, testEnv } from "../helpers/env.js";
import { freePort } from "../helpers/ports.js";

const handles: PonderHandle[] = [];
afterAll(async () => {
  for (const h of handles) await h.stop();
});

async function start(env: Record<string, string>, schema: string) {
  const logs: string[] = [];
  const handle = startPonder({ port: await freePort(), env, schema, viewsSchema: VIEWS_SCHEMA, logLevel: "warn", onLog: (l) => logs.push(l) });
  handles.push(handle);
  return Object.assign(handle, { logs });
}

async function query<T extends pg.QueryResultRow>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const head = async (rpcUrl: string) =>
  Number(
    BigInt(
      (
        (await (
          await fetch(rpcUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber" }),
          })
        ).json()) as { result: string }
      ).result,
    ),
  );

describe("a restart with a changed PROTOCOL_TOKEN_ADDRESS", () => {
  it("indexes into a fresh schema without exiting; the views read the old index until the new one is ready", async () => {
    const { deployments, rpcUrl } = testEnv();
    const db = await createDatabase("cfg");
    const before = serviceEnv(db);
    const schemaBefore = ponderSchemaName(testConfig(db));
    const first = await start(before, schemaBefore);
    await waitForReady(first);
    expect(await publishedSchema(db)).toBe(schemaBefore);
    const protocolTokenRows = await query<{ n: string }>(db, `SELECT count(*)::text AS n FROM "${schemaBefore}".token WHERE address = $1`, [
      deployments.protocolToken!.toLowerCase(),
    ]);
    await first.stop();

    // The operator's new protocol token: another token of the devnet.
    const newToken = deployments.contracts.usdcPairedToken as Address;
    const changed = { PROTOCOL_TOKEN_ADDRESS: newToken };
    const after = serviceEnv(db, changed);
    const schemaAfter = ponderSchemaName(testConfig(db, changed));
    expect(schemaAfter).not.toBe(schemaBefore);
    // The configuration, not only the code, names the schema: the same configuration, the same name.
    expect(ponderSchemaName(testConfig(db, changed))).toBe(schemaAfter);

    // What a schema named by the code alone got: ponder exits for good.
    const refused = await start(after, schemaBefore);
    await new Promise<void>((resolve) => (refused.process.exitCode !== null ? resolve() : refused.process.once("exit", () => resolve())));
    expect(refused.logs.join("\n")).toContain("was previously used by a different Ponder app");

    const second = await start(after, schemaAfter);
    // Until the new index is ready, the views read the previous one, and never fail.
    let sawPrevious = false;
    for (;;) {
      const published = await publishedSchema(db);
      expect([schemaBefore, schemaAfter]).toContain(published);
      if (published === schemaBefore) sawPrevious = true;
      await query(db, `SELECT count(*) FROM "${VIEWS_SCHEMA}".token`);
      const ready = await fetch(`${second.url}/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      expect(second.process.exitCode).toBeNull();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sawPrevious).toBe(true);
    expect(await publishedSchema(db)).toBe(schemaAfter);
    await waitForIndexed(second, await head(rpcUrl));
    expect(second.process.exitCode).toBeNull();
    expect(second.logs.join("\n")).not.toContain("previously used");
    // The previous index is still there, readable, untouched.
    expect(
      await query<{ n: string }>(db, `SELECT count(*)::text AS n FROM "${schemaBefore}".token WHERE address = $1`, [deployments.protocolToken!.toLowerCase()]),
    ).toEqual(protocolTokenRows);
  });
});
