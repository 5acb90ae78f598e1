/**
 * Reward slots and fee preferences indexed right whatever the order of the LP locker's launch
 * events. Production's locker emits `InitialFeePreferences` before `TokenRewardAdded`
 * (clanker-v4-real.md item 8); the devnet's locker used to emit them the other way round. The
 * recorded launch of trace d (operator 90% `Paired`, creator 10% `Clanker`) is replayed as raw
 * logs from the locker's own address, once in each order: for the time of one transaction each,
 * the locker's code is a contract that emits the given topics and data (LOG1..LOG4), encoded from
 * the trace's decoded arguments with the project's ABI; then the locker's code is put back.
 * Finally the devnet's own launch, with production's order, is indexed the same way.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import pg from "pg";
import { type AbiEvent, type Address, type Hex, encodeAbiParameters, encodeEventTopics, encodeFunctionData, getAbiItem, parseAbi, parseEventLogs } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeeIn, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import * as act from "../helpers/actions.js";
import { createDatabase, devnetAs, startTestPonder, testEnv } from "../helpers/env.js";

const TRACE = join(process.cwd(), "..", "shared", "reference", "clanker-v4-traces", "d-two-recipients-fee-preferences.json");
const lc = (a: string) => a.toLowerCase();
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

/** Emits, in one call, every (topics, data) it is given, in order. */
const EMITTER_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
contract LogEmitter {
    function emitLogs(bytes32[][] calldata topics, bytes[] calldata data) external {
        for (uint256 i = 0; i < data.length; i++) {
            bytes memory d = data[i];
            bytes32[] memory t = topics[i];
            assembly {
                let p := add(d, 32)
                let n := mload(d)
                switch mload(t)
                case 1 { log1(p, n, mload(add(t, 32))) }
                case 2 { log2(p, n, mload(add(t, 32)), mload(add(t, 64))) }
                case 3 { log3(p, n, mload(add(t, 32)), mload(add(t, 64)), mload(add(t, 96))) }
                case 4 { log4(p, n, mload(add(t, 32)), mload(add(t, 64)), mload(add(t, 96)), mload(add(t, 128))) }
            }
        }
    }
}`;
const emitterAbi = parseAbi(["function emitLogs(bytes32[][] topics, bytes[] data)"]);

function emitterCode(): Hex {
  const solc = createRequire(import.meta.url)("solc") as { compile: (input: string) => string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "LogEmitter.sol": { content: EMITTER_SOURCE } },
        settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["evm.deployedBytecode.object"] } } },
      }),
    ),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  return `0x${output.contracts["LogEmitter.sol"]!.LogEmitter!.evm.deployedBytecode.object}`;
}

type Recorded = { emitter: string; event: string; args: Record<string, unknown> };

describe("indexer: fee preferences whatever the order of the locker's launch events", () => {
  const env = testEnv();
  const c = env.deployments.contracts as Record<string, Address>;
  const operator = devnetAs(0);
  const sender = devnetAs(3);
  let ponder: Awaited<ReturnType<typeof startTestPonder>>;
  let db: pg.Pool;
  const q = async <T = Record<string, unknown>>(text: string, values: unknown[] = []) => (await db.query(text, values)).rows as T[];
  const rpc = (method: string, params: unknown[]) =>
    (sender.publicClient.request as (a: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });

  const recorded = (JSON.parse(readFileSync(TRACE, "utf8")) as { steps: { expect: { logs: Recorded[] } }[] }).steps[0]!.expect.logs.filter(
    (l) => l.emitter === "$lpLocker",
  );
  const creators = { production: fresh(), reversed: fresh() };
  const tokens = { production: fresh(), reversed: fresh() };
  let launched: { token: Address; creator: Address };

  /** The raw log of a recorded locker event for `token`, roles replaced by this chain's accounts, encoded with the project's ABI. */
  function rawLog(log: Recorded, token: Address, creator: Address): { topics: Hex[]; data: Hex } {
    const roles: Record<string, string> = {
      $token: token,
      $operator: operator.account.address,
      $creator: creator,
      $usdc: c.usdc!,
      $hook: c.clankerHook!,
      $positionId: "7",
    };
    const sub = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(sub);
      if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sub(x)]));
      return typeof v === "string" && v in roles ? roles[v] : v;
    };
    const item = getAbiItem({ abi: clankerLpLockerAbi, name: log.event as "TokenRewardAdded" }) as AbiEvent;
    const args = sub(log.args) as Record<string, unknown>;
    const typed = (p: AbiEvent["inputs"][number], v: unknown): unknown => {
      if (p.type.endsWith("[]")) return (v as unknown[]).map((x) => typed({ ...p, type: p.type.slice(0, -2) }, x));
      if (p.type === "tuple") {
        const components = (p as { components: AbiEvent["inputs"] }).components;
        return Object.fromEntries(components.map((cp) => [cp.name!, typed(cp, (v as Record<string, unknown>)[cp.name!])]));
      }
      if (/^u?int\d+$/.test(p.type)) return Number.parseInt(p.type.replace(/^u?int/, ""), 10) <= 48 ? Number(v) : BigInt(v as string);
      return v;
    };
    const values = Object.fromEntries(item.inputs.map((p) => [p.name!, typed(p, args[p.name!])]));
    const topics = encodeEventTopics({ abi: [item], eventName: item.name, args: values } as Parameters<typeof encodeEventTopics>[0]) as Hex[];
    const rest = item.inputs.filter((p) => !p.indexed);
    return {
      topics,
      data: encodeAbiParameters(
        rest,
        rest.map((p) => values[p.name!]),
      ),
    };
  }

  /** One transaction from the locker's address emitting the given logs, its code put back after. */
  async function emitFromLocker(logs: { topics: Hex[]; data: Hex }[]): Promise<bigint> {
    const original = (await rpc("eth_getCode", [c.lpLocker, "latest"])) as Hex;
    await rpc("anvil_setCode", [c.lpLocker, emitterCode()]);
    try {
      const hash = await sender.walletClient.sendTransaction({
        account: sender.account,
        chain: null,
        to: c.lpLocker!,
        data: encodeFunctionData({ abi: emitterAbi, functionName: "emitLogs", args: [logs.map((l) => l.topics), logs.map((l) => l.data)] }),
      });
      const receipt = await sender.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      expect(receipt.status).toBe("success");
      return receipt.blockNumber;
    } finally {
      await rpc("anvil_setCode", [c.lpLocker, original]);
    }
  }

  beforeAll(async () => {
    const databaseUrl = await createDatabase("order");
    db = new pg.Pool({ connectionString: databaseUrl, options: "-c search_path=app" });
    ponder = await startTestPonder(databaseUrl);

    const preferences = recorded.find((l) => l.event === "InitialFeePreferences")!;
    const rewards = recorded.find((l) => l.event === "TokenRewardAdded")!;
    expect(recorded.map((l) => l.event)).toEqual(["InitialFeePreferences", "TokenRewardAdded"]);
    // Production's order, then the simulator's old one.
    await emitFromLocker([preferences, rewards].map((l) => rawLog(l, tokens.production, creators.production)));
    await emitFromLocker([rewards, preferences].map((l) => rawLog(l, tokens.reversed, creators.reversed)));

    // The devnet's own launch, operator Paired and creator Clanker, as trace d.
    const creator = fresh();
    const result = await act.launchToken(operator, c, {
      name: "Preferences order",
      symbol: "PORD",
      operator: operator.account.address,
      creator,
      rewards: [
        { admin: operator.account.address, recipient: operator.account.address, bps: 9_000, feeIn: FeeIn.Paired },
        { admin: operator.account.address, recipient: creator, bps: 1_000, feeIn: FeeIn.Clanker },
      ],
    });
    launched = { token: result.token, creator };
    const order = parseEventLogs({ abi: clankerLpLockerAbi, logs: result.receipt.logs }).map((l) => l.eventName);
    expect(order).toEqual(["InitialFeePreferences", "TokenRewardAdded"]);

    await waitForIndexed(ponder, await sender.publicClient.getBlockNumber()).catch((error) => {
      throw new Error(`${error.message}\n${ponder.logs.slice(-30).join("\n")}`);
    });
  }, 300_000);

  afterAll(async () => {
    await ponder?.stop();
    await db?.end();
  });

  const slotsOf = (token: Address) =>
    q("SELECT reward_index, recipient, bps, fee_in FROM reward_recipient WHERE token = $1 ORDER BY reward_index", [lc(token)]);

  it.each(["production", "reversed"] as const)("the recorded launch in the %s order: the operator Paired, the creator Clanker", async (order) => {
    expect(await slotsOf(tokens[order])).toEqual([
      { reward_index: 0, recipient: lc(operator.account.address), bps: 9_000, fee_in: FeeIn.Paired },
      { reward_index: 1, recipient: lc(creators[order]), bps: 1_000, fee_in: FeeIn.Clanker },
    ]);
  });

  it("the devnet's launch, in production's order, the same", async () => {
    expect(await slotsOf(launched.token)).toEqual([
      { reward_index: 0, recipient: lc(operator.account.address), bps: 9_000, fee_in: FeeIn.Paired },
      { reward_index: 1, recipient: lc(launched.creator), bps: 1_000, fee_in: FeeIn.Clanker },
    ]);
  });
});
