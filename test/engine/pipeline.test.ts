/**
 * The transaction pipeline on a private anvil and a real PostgreSQL: a process killed with
 * SIGKILL after signing or after broadcasting resumes from its rows, and every intent is
 * mined exactly once with a gap-free nonce sequence; stuck transactions are replaced with
 * higher fees; dropped ones are rebroadcast; reverts are recorded with their reason.
 */
import { type Address, type Hex, encodeFunctionData, erc20Abi, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../../common/config.js";
import { createLogger } from "../../common/logger.js";
import { type AnvilHandle, startAnvil } from "../../devnet/anvil.js";
import { compileProject } from "../../devnet/compile.js";
import { createDevnetContext } from "../../devnet/context.js";
import { createChainClients } from "../../core/chain/client.js";
import { TxPipeline } from "../../core/chain/pipeline/index.js";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { classifyError } from "../../core/errors.js";
import { createDatabase } from "../helpers/env.js";
import { freePort } from "../helpers/ports.js";
import { lines, rpc, runTs } from "./helpers.js";

const CHILD = "test/engine/fixtures/pipeline-child.ts";
const OPERATOR = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const RECIPIENT = getAddress("0x000000000000000000000000000000000000bEEF");

let anvil: AnvilHandle;
let databaseUrl: string;
let e: EngineDb;

async function nonceOf(address: Address, tag = "latest"): Promise<number> {
  return Number(await rpc<Hex>(anvil.rpcUrl, "eth_getTransactionCount", [address, tag]));
}
async function balanceOf(address: Address): Promise<bigint> {
  return BigInt(await rpc<Hex>(anvil.rpcUrl, "eth_getBalance", [address, "latest"]));
}
async function intents(prefix: string) {
  const { rows } = await e.pool.query("SELECT key, status, nonce, tx_hash, tx_hashes, replacements FROM engine.tx_intents WHERE key LIKE $1 ORDER BY id", [
    `${prefix}%`,
  ]);
  return rows as { key: string; status: string; nonce: number; tx_hash: Hex; tx_hashes: Hex[]; replacements: number }[];
}

/** Every mined intent's transaction is on chain at its recorded nonce, nonces are consecutive, no extra transaction was sent. */
async function expectExactlyOnce(keys: string[], firstNonce: number) {
  const rows = (await intents("")).filter((r) => keys.includes(r.key));
  expect(rows.map((r) => r.status)).toEqual(keys.map(() => "mined"));
  const nonces = rows.map((r) => r.nonce).sort((a, b) => a - b);
  expect(nonces).toEqual(keys.map((_, i) => firstNonce + i));
  for (const r of rows) {
    const tx = await rpc<{ nonce: Hex; from: string }>(anvil.rpcUrl, "eth_getTransactionByHash", [r.tx_hash]);
    expect(Number(tx.nonce)).toBe(r.nonce);
  }
  expect(await nonceOf(OPERATOR)).toBe(firstNonce + keys.length);
}

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort() });
  databaseUrl = await createDatabase("pipeline");
  e = openEngineDb(databaseUrl);
  await migrate(e.pool);
});
afterAll(async () => {
  await e?.close();
  await anvil?.stop();
});

const childEnv = (extra: Record<string, string>) => ({ DATABASE_URL: databaseUrl, RPC_URL: anvil.rpcUrl, RECIPIENT, ...extra });

describe("crash recovery", () => {
  it("SIGKILL after signing, before broadcast: restart broadcasts the stored bytes once", async () => {
    const first = await nonceOf(OPERATOR);
    const before = await balanceOf(RECIPIENT);
    const crashed = await runTs(CHILD, childEnv({ COUNT: "3", ENGINE_CRASH_AT: "after-sign:2" }));
    expect(crashed.signal).toBe("SIGKILL");
    // transfer:1 mined; transfer:2 signed (raw stored) but never sent.
    const mid = await intents("transfer:");
    expect(mid.map((r) => [r.key, r.status])).toEqual([
      ["transfer:1", "mined"],
      ["transfer:2", "signed"],
    ]);
    expect(await nonceOf(OPERATOR, "pending")).toBe(first + 1);

    const resumed = await runTs(CHILD, childEnv({ COUNT: "3" }));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lines(resumed.stdout).map((l) => l.status)).toEqual(["mined", "mined", "mined"]);
    await expectExactlyOnce(["transfer:1", "transfer:2", "transfer:3"], first);
    // The signed bytes of transfer:2 were sent as they were: one hash only.
    expect((await intents("transfer:2"))[0]!.tx_hashes).toHaveLength(1);
    expect((await balanceOf(RECIPIENT)) - before).toBe(1n + 2n + 3n);
  });

  it("SIGKILL after broadcast, before the receipt: restart finds the transaction, never sends it again", async () => {
    await e.pool.query("DELETE FROM engine.tx_intents");
    const first = await nonceOf(OPERATOR);
    const before = await balanceOf(RECIPIENT);
    await rpc(anvil.rpcUrl, "evm_setAutomine", [false]);
    try {
      const crashed = await runTs(CHILD, childEnv({ COUNT: "2", ENGINE_CRASH_AT: "after-broadcast:1" }));
      expect(crashed.signal).toBe("SIGKILL");
      expect((await intents("transfer:")).map((r) => r.status)).toEqual(["broadcast"]);
      // Still in the mempool when the engine comes back; it is mined while the engine waits.
      const resumed = runTs(CHILD, childEnv({ COUNT: "2" }));
      const mine = setInterval(() => void rpc(anvil.rpcUrl, "evm_mine").catch(() => {}), 300);
      const result = await resumed;
      clearInterval(mine);
      expect(result.code, result.stderr).toBe(0);
    } finally {
      await rpc(anvil.rpcUrl, "evm_setAutomine", [true]);
    }
    await expectExactlyOnce(["transfer:1", "transfer:2"], first);
    expect((await balanceOf(RECIPIENT)) - before).toBe(3n);
  });

  it("a killed process that restarts many times still sends each intent once", async () => {
    await e.pool.query("DELETE FROM engine.tx_intents");
    const first = await nonceOf(OPERATOR);
    for (const point of ["after-sign:1", "after-broadcast:2", "after-sign:2", "after-broadcast:1"]) {
      const r = await runTs(CHILD, childEnv({ COUNT: "4", ENGINE_CRASH_AT: point }));
      // Killed at the point, or finished first when the point comes after the last intent.
      expect(r.signal === "SIGKILL" || r.code === 0, r.stderr).toBe(true);
    }
    const done = await runTs(CHILD, childEnv({ COUNT: "4" }));
    expect(done.code, done.stderr).toBe(0);
    await expectExactlyOnce(["transfer:1", "transfer:2", "transfer:3", "transfer:4"], first);
  });
});

describe("in-process pipeline", () => {
  const log = createLogger("test", "error");
  const clients = () => createChainClients({ rpcUrl: anvil.rpcUrl, chainId: DEVNET_CHAIN_ID, operatorKey: DEVNET_OPERATOR_KEY, isDevnet: true });
  const pipeline = (options = {}) => new TxPipeline({ pool: e.pool, clients: clients(), log, options: { pollMs: 50, maxWaitMs: 20_000, ...options } });

  it("returns the same outcome for the same key without sending again", async () => {
    const p = pipeline();
    const first = await nonceOf(OPERATOR);
    const a = await p.send({ key: "idem:1", kind: "transfer", to: RECIPIENT, data: "0x", value: 5n });
    const b = await p.send({ key: "idem:1", kind: "transfer", to: RECIPIENT, data: "0x", value: 5n });
    const [c, d] = await Promise.all([
      p.send({ key: "idem:2", kind: "t", to: RECIPIENT, data: "0x" }),
      p.send({ key: "idem:2", kind: "t", to: RECIPIENT, data: "0x" }),
    ]);
    expect(a.status).toBe("mined");
    expect(b.intent.txHash).toBe(a.intent.txHash);
    expect(c.intent.txHash).toBe(d.intent.txHash);
    expect(await nonceOf(OPERATOR)).toBe(first + 2);
  });

  it("replaces a stuck transaction at the same nonce with fees at least 10% higher; exactly one lands", async () => {
    const p = pipeline({ stuckAfterMs: 300 });
    const first = await nonceOf(OPERATOR);
    const before = await balanceOf(RECIPIENT);
    await rpc(anvil.rpcUrl, "evm_setAutomine", [false]);
    try {
      const sending = p.send({ key: "stuck:1", kind: "transfer", to: RECIPIENT, data: "0x", value: 7n });
      // Until the pipeline has replaced it at least once (it may replace it again meanwhile).
      const until = Date.now() + 30_000;
      let row = (await intents("stuck:1"))[0];
      while (!row || row.replacements < 1) {
        if (Date.now() > until) throw new Error(`no replacement within 30 s; the intent: ${JSON.stringify(row)}`);
        await new Promise((r) => setTimeout(r, 50));
        row = (await intents("stuck:1"))[0];
      }
      expect(row.tx_hashes.length).toBe(row.replacements + 1);
      const fees = await e.pool.query("SELECT max_priority_fee_per_gas::text AS tip FROM engine.tx_intents WHERE key = 'stuck:1'");
      expect(BigInt(fees.rows[0].tip)).toBeGreaterThan(0n);
      await rpc(anvil.rpcUrl, "evm_mine");
      const outcome = await sending;
      expect(outcome.status).toBe("mined");
      // The one that landed is one of the intent's own transactions (all of them by now: a
      // replacement may have been sent after the row above was read).
      const [settled] = await intents("stuck:1");
      expect(settled!.tx_hashes).toContain(outcome.intent.txHash);
      expect(settled!.tx_hashes.length).toBe(settled!.replacements + 1);
    } finally {
      await rpc(anvil.rpcUrl, "evm_setAutomine", [true]);
    }
    expect(await nonceOf(OPERATOR)).toBe(first + 1);
    expect((await balanceOf(RECIPIENT)) - before).toBe(7n);
  });

  it("rebroadcasts a transaction the node dropped", async () => {
    const p = pipeline({ stuckAfterMs: 60_000 });
    const first = await nonceOf(OPERATOR);
    await rpc(anvil.rpcUrl, "evm_setAutomine", [false]);
    try {
      const sending = p.send({ key: "dropped:1", kind: "transfer", to: RECIPIENT, data: "0x", value: 9n });
      let row;
      for (let i = 0; i < 50 && !(row = (await intents("dropped:1"))[0])?.tx_hash; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200));
      await rpc(anvil.rpcUrl, "anvil_dropTransaction", [row!.tx_hash]);
      // The pipeline notices and sends the same bytes again: the node knows the hash once more.
      const until = Date.now() + 30_000;
      while ((await rpc(anvil.rpcUrl, "eth_getTransactionByHash", [row!.tx_hash])) === null) {
        if (Date.now() > until) throw new Error(`the dropped transaction ${row!.tx_hash} was not sent again within 30 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await rpc(anvil.rpcUrl, "evm_mine");
      const outcome = await sending;
      expect(outcome.status).toBe("mined");
      expect(outcome.intent.txHashes).toHaveLength(1);
    } finally {
      await rpc(anvil.rpcUrl, "evm_setAutomine", [true]);
    }
    expect(await nonceOf(OPERATOR)).toBe(first + 1);
  });

  it("records a simulation revert as a permanent failure with its reason, without using a nonce", async () => {
    const ctx = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
    const token = await ctx.deploy(compileProject().DevnetUSDC!);
    const p = pipeline();
    const first = await nonceOf(OPERATOR);
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [RECIPIENT, 1n] });
    const outcome = await p.send({ key: "revert:sim", kind: "transfer", to: token, data });
    expect(outcome.status).toBe("failed");
    expect(outcome.status === "failed" && outcome.reason).toMatch(/ERC20InsufficientBalance/);
    expect(await nonceOf(OPERATOR)).toBe(first);
    // The next intent takes the nonce the failed one never used.
    expect((await p.send({ key: "after-revert", kind: "t", to: RECIPIENT, data: "0x" })).intent.nonce).toBe(first);
  });

  it("records an onchain revert with its reason", async () => {
    // A contract that reverts when tx.gasprice > 0: the simulation (no gas price) passes, the mined call reverts.
    const code = "0x3a600557005b60006000fd" as Hex;
    const target = getAddress("0x000000000000000000000000000000000000c0de");
    await rpc(anvil.rpcUrl, "anvil_setCode", [target, code]);
    const p = pipeline();
    const first = await nonceOf(OPERATOR);
    const outcome = await p.send({ key: "revert:chain", kind: "call", to: target, data: "0x" });
    expect(outcome.status).toBe("reverted");
    expect(outcome.intent.revertReason).toBeTruthy();
    expect(await nonceOf(OPERATOR)).toBe(first + 1);
  });
});

describe("out of gas", () => {
  const log = createLogger("test", "error");
  const clients = () => createChainClients({ rpcUrl: anvil.rpcUrl, chainId: DEVNET_CHAIN_ID, operatorKey: DEVNET_OPERATOR_KEY, isDevnet: true });
  // A call whose gas grows with storage: it loops `slot 0` times; any calldata sets slot 0 instead.
  //   CALLDATASIZE ?→set; n = SLOAD(0); while (n) n--; STOP; set: SSTORE(0, CALLDATALOAD(0))
  const GAS_SINK = "0x36601657600054" + "5b801560145760019003600756" + "5b00" + "5b600035600055" + "00";
  const OTHER = getAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");

  /** Sends `key` with automine off, then mines it after a transaction (higher tip, same block) that makes `sink` loop 20,000 times. */
  async function sendUnderRaisedLoad(p: TxPipeline, key: string, to: Address, sink: Address) {
    await rpc(anvil.rpcUrl, "evm_setAutomine", [false]);
    try {
      const sending = p.send({ key, kind: "gas-sink", to, data: "0x" });
      let row;
      for (let i = 0; i < 100 && !(row = (await intents(key))[0])?.tx_hash; i++) await new Promise((r) => setTimeout(r, 50));
      expect(row?.tx_hash).toBeTruthy();
      await rpc(anvil.rpcUrl, "eth_sendTransaction", [
        {
          from: OTHER,
          to: sink,
          data: `0x${(20_000).toString(16).padStart(64, "0")}`,
          gas: "0x30000",
          maxPriorityFeePerGas: "0x174876e800",
          maxFeePerGas: "0x2540be4000",
        },
      ]);
      await rpc(anvil.rpcUrl, "evm_mine");
      return sending;
    } finally {
      await rpc(anvil.rpcUrl, "evm_setAutomine", [true]);
    }
  }

  it("recognises a transaction that ran out of gas, says so, and retries it once with a higher limit", async () => {
    const sink = getAddress("0x000000000000000000000000000000000000ca5e");
    await rpc(anvil.rpcUrl, "anvil_setCode", [sink, GAS_SINK]);
    const p = new TxPipeline({
      pool: e.pool,
      clients: clients(),
      log,
      options: { pollMs: 50, maxWaitMs: 20_000, stuckAfterMs: 60_000, gasRetryKinds: ["gas-sink"] },
    });
    const first = await nonceOf(OPERATOR);
    const outcome = await sendUnderRaisedLoad(p, "oog:1", sink, sink);
    expect(outcome.status).toBe("mined");
    expect(outcome.intent.key).toBe("oog:1:gas-retry");
    const { rows } = await e.pool.query(
      "SELECT key, status, gas_limit::text AS gas, gas_used::text AS used, revert_reason FROM engine.tx_intents WHERE key LIKE 'oog:1%' ORDER BY id",
    );
    expect(rows.map((r) => [r.key, r.status])).toEqual([
      ["oog:1", "reverted"],
      ["oog:1:gas-retry", "mined"],
    ]);
    expect(rows[0].revert_reason).toBe(`out of gas at limit ${rows[0].gas} (used ${rows[0].used})`);
    expect(BigInt(rows[1].gas)).toBeGreaterThanOrEqual(2n * BigInt(rows[0].gas));
    expect(BigInt(rows[1].used)).toBeGreaterThan(BigInt(rows[0].gas));
    // Asked again (a restart), the original key answers with the retry's outcome and sends nothing.
    const again = await p.send({ key: "oog:1", kind: "gas-sink", to: sink, data: "0x" });
    expect(again.intent.txHash).toBe(outcome.intent.txHash);
    expect(await nonceOf(OPERATOR)).toBe(first + 2);
  });

  it("retries an out-of-gas outcome that no send returned (settled on a finality tick), once, on the next sweep", async () => {
    const sink = getAddress("0x000000000000000000000000000000000000ca61");
    await rpc(anvil.rpcUrl, "anvil_setCode", [sink, GAS_SINK]);
    const options = { pollMs: 50, maxWaitMs: 20_000, stuckAfterMs: 60_000 };
    // The outcome reaches the row without a retry, as when a restarted engine's finality tick
    // drives it to its receipt after the cycle that sent it is done.
    const settling = new TxPipeline({ pool: e.pool, clients: clients(), log, options: { ...options, gasRetryKinds: [] } });
    const first = await nonceOf(OPERATOR);
    const settled = await sendUnderRaisedLoad(settling, "oog:left", sink, sink);
    expect(settled.status).toBe("reverted");
    expect(settled.status === "reverted" && settled.reason).toMatch(/^out of gas at limit/);
    expect((await intents("oog:left")).map((r) => r.key)).toEqual(["oog:left"]);

    const engine = new TxPipeline({ pool: e.pool, clients: clients(), log, options: { ...options, gasRetryKinds: ["gas-sink"] } });
    expect(await engine.retryOutOfGasLeftBehind()).toEqual(["oog:left"]);
    expect((await intents("oog:left")).map((r) => [r.key, r.status])).toEqual([
      ["oog:left", "reverted"],
      ["oog:left:gas-retry", "mined"],
    ]);
    // The next tick finds nothing left behind and sends nothing; the original key answers with the retry.
    expect(await engine.retryOutOfGasLeftBehind()).toEqual([]);
    expect((await engine.send({ key: "oog:left", kind: "gas-sink", to: sink, data: "0x" })).intent.key).toBe("oog:left:gas-retry");
    expect(await nonceOf(OPERATOR)).toBe(first + 2);
  });

  it("names the call that ran out inside a transaction from the node's trace", async () => {
    const sink = getAddress("0x000000000000000000000000000000000000ca5f");
    const wrapper = getAddress("0x000000000000000000000000000000000000ca60");
    await rpc(anvil.rpcUrl, "anvil_setCode", [sink, GAS_SINK]);
    // CALL(gas - 5000, sink, 0, 0, 0, 0, 0); if the call failed: REVERT(0, 0). The wrapper keeps
    // 1/64 of the gas when the sink runs out, so the receipt alone does not show it.
    await rpc(anvil.rpcUrl, "anvil_setCode", [wrapper, `0x6000600060006000600073${sink.slice(2).toLowerCase()}6113885a03f1602d5760006000fd5b00`]);
    const p = new TxPipeline({ pool: e.pool, clients: clients(), log, options: { pollMs: 50, maxWaitMs: 20_000, stuckAfterMs: 60_000, gasRetryKinds: [] } });
    const outcome = await sendUnderRaisedLoad(p, "oog:inner", wrapper, sink);
    expect(outcome.status).toBe("reverted");
    expect(outcome.status === "reverted" && outcome.receipt.gasUsed).toBeLessThan(Number(outcome.intent.gasLimit));
    expect(outcome.status === "reverted" && outcome.reason).toMatch(
      new RegExp(`^out of gas at limit \\d+ \\(used \\d+, ran out in a call to ${sink}\\)$`, "i"),
    );
  });
});

describe("error classification", () => {
  it("maps RPC texts to retryable and permanent classes", () => {
    expect(classifyError(new Error("nonce too low")).code).toBe("nonce-too-low");
    expect(classifyError(new Error("already known")).code).toBe("already-known");
    expect(classifyError(new Error("replacement transaction underpriced")).retryable).toBe(true);
    expect(classifyError(Object.assign(new Error("HTTP request failed"), { cause: new Error("fetch failed") })).code).toBe("rpc-unavailable");
    expect(classifyError(new Error("connect ECONNREFUSED 127.0.0.1:8545")).retryable).toBe(true);
    expect(classifyError(new Error("The request took too long to respond")).code).toBe("timeout");
    const revert = classifyError(new Error("execution reverted: BELOW_MIN_POS"));
    expect([revert.code, revert.retryable, (revert as { reason?: string }).reason]).toEqual(["revert", false, "BELOW_MIN_POS"]);
    expect(classifyError(new Error("something odd")).retryable).toBe(false);
  });
});
