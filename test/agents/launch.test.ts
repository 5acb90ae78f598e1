/**
 * Agent launches on the devnet, in-process, on real PostgreSQL: an underfunded wallet is a
 * 422 naming the shortfall; a funded one deploys from the agent wallet (tokenAdmin and
 * sender), pays the platform fee to the operator, buys at launch, enrols with the charter
 * hash and runs under its mandate; a deploy revert is a 502 that can be retried; a process
 * killed between steps resumes without a second deployment or enrolment.
 */
import { type Address, type Hex, getAbiItem, getAddress, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerFactoryAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { registryAbi } from "../../common/abis/registry.js";
import { type Charter, charterHash, charterSchema } from "../../core/agents/charter.js";
import { mandateFor, mandateForToken } from "../../core/token-mandate.js";
import { openEngineDb } from "../../core/db/client.js";
import { parseTokenCreated } from "../../common/deploy-config.js";
import { agentResponse, launchedResponse } from "../../api/views/agent.js";
import { sleep } from "../../common/async.js";
import { createLogger } from "../../common/logger.js";
import { checkFinality } from "../../engine/reorg/finality.js";
import { rewindEngine } from "../../engine/reorg/rewind.js";
import { rpc, runTs } from "../engine/helpers.js";
import { ANVIL_KEYS, createDatabase, devnetAs, serviceEnv, testEnv } from "../helpers/env.js";
import { produceBlocksWhile } from "../helpers/actions.js";
import { AGENT_KEY_SECRET, type TestApi, signIn, testApi } from "./helpers.js";

const CHILD = "test/agents/fixtures/launch-child.ts";
const ALICE = ANVIL_KEYS[1];
const OPERATOR = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const deprecatedAbi = [{ type: "function", name: "setDeprecated", stateMutability: "nonpayable", inputs: [{ name: "d", type: "bool" }], outputs: [] }] as const;
const erc20BalanceAbi = [
  { type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "a", type: "address" }], outputs: [{ type: "uint256" }] },
] as const;

let api: TestApi;
let databaseUrl: string;
let alice: string;
const contracts = () => testEnv().deployments.contracts as Record<string, Address>;
const chain = () => devnetAs(1).publicClient;

const CHARTER: Charter = charterSchema.parse({
  engine: { strategy: "momentum" },
  persona: { name: "Ada", voice: "dry and patient" },
  mandate: { split: { assetPct: 30, perpPct: 55, creatorPct: 10 }, desk: { market: "BTC/USD", maxLeverage: 4, maxDrawdownPct: 15 }, buybackMinUsdc: "20" },
});

async function newAgent(charter: Charter | "default" = CHARTER): Promise<{ id: string; wallet: Address }> {
  const created = await api.call("POST", "/api/v1/agents", { token: alice });
  const { id, wallet } = created.json;
  const res =
    charter === "default"
      ? await api.call("POST", `/api/v1/agents/${id}/charter/default`, { token: alice })
      : await api.call("POST", `/api/v1/agents/${id}/charter/submit`, { token: alice, body: charter });
  expect(res.status, res.text).toBe(200);
  return { id, wallet };
}

async function fund(wallet: Address, wei: bigint) {
  const funder = devnetAs(1);
  const hash = await funder.walletClient.sendTransaction({ to: wallet, value: wei, account: funder.account, chain: funder.walletClient.chain });
  await funder.publicClient.waitForTransactionReceipt({ hash });
}

const launch = (id: string, body: Record<string, unknown>) => api.call("POST", `/api/v1/agents/${id}/charter/launch`, { token: alice, body });
/**
 * A launch after a launching process was killed. Its session's advisory lock goes when
 * PostgreSQL notices the connection is gone, which a loaded machine can take a moment to do;
 * until then the launch answers 409 "in progress", as a client retrying would see. Retried on
 * that answer alone, for up to 30 s (a 409 sends nothing).
 */
async function launchAfterKill(id: string, body: Record<string, unknown>) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await launch(id, body);
    if (res.status !== 409 || !/in progress/.test(res.text) || Date.now() > deadline) return res;
    await sleep(250);
  }
}
const nonceOf = (address: Address) => chain().getTransactionCount({ address });

async function deploymentsBy(admin: Address) {
  const event = getAbiItem({ abi: clankerFactoryAbi, name: "TokenCreated" });
  return chain().getLogs({ address: contracts().launcher, event, args: { tokenAdmin: admin }, fromBlock: 0n });
}

beforeAll(async () => {
  databaseUrl = await createDatabase("agents_launch");
  api = testApi(databaseUrl);
  alice = await signIn(api, ALICE);
});
afterAll(async () => {
  await api?.close();
});

describe("launch from the agent wallet", () => {
  it("underfunded → 422 naming the shortfall; nothing is sent", async () => {
    const agent = await newAgent();
    await fund(agent.wallet, parseEther("0.001"));
    const res = await launch(agent.id, { name: "Under", symbol: "UND" });
    expect(res.status, res.text).toBe(422);
    const m = /holds 0\.001 ETH; the launch needs ([\d.]+) ETH \(platform fee 0\.002 \+ estimated gas ([\d.]+) \+ dev buy 0\): short by ([\d.]+) ETH/.exec(
      res.json.error,
    );
    expect(m, res.json.error).not.toBeNull();
    const [needs, gas, short] = [parseEther(m![1]!), parseEther(m![2]!), parseEther(m![3]!)];
    expect(gas).toBeGreaterThan(0n);
    expect(needs).toBe(parseEther("0.002") + gas);
    expect(short).toBe(needs - parseEther("0.001"));
    // A dev buy adds to what is needed.
    const withBuy = await launch(agent.id, { name: "Under", symbol: "UND", devBuyEth: "0.5" });
    expect(withBuy.status).toBe(422);
    expect(withBuy.json.error).toMatch(/\+ dev buy 0\.5\): short by/);
    expect(await nonceOf(agent.wallet)).toBe(0);
    expect((await api.call("GET", `/api/v1/agents/${agent.id}`)).json.status).toBe("charter-ready");
    // Launch bodies are validated before anything else.
    for (const [body, error] of [
      [{ symbol: "X" }, /name: .*required/],
      [{ name: "X", symbol: "A B" }, /symbol must not contain spaces/],
      [{ name: "X", symbol: "X", devBuyEth: "-1" }, /devBuyEth must be a non-negative decimal/],
      [{ name: "X", symbol: "X", image: "javascript:alert(1)" }, /image must be an http\(s\) or ipfs URL/],
      [{ name: "X", symbol: "X", extra: 1 }, /unknown field "extra"/],
    ] as const) {
      const bad = await launch(agent.id, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.json.error).toMatch(error);
    }
  });

  it("funded → deployed from the agent wallet, fee at the operator, dev buy, enrolled with the charter hash, running", async () => {
    const agent = await newAgent();
    await fund(agent.wallet, parseEther("0.05"));
    const operatorBefore = await chain().getBalance({ address: OPERATOR });
    const pending = launch(agent.id, {
      name: "Agent Coin",
      symbol: "AGC",
      image: "https://example.com/agc.png",
      description: "Run by Ada",
      devBuyEth: "0.001",
    });
    // The fee and the deploy are sent; then the dev buy waits for the sniper auction: nothing
    // more leaves the agent wallet while the chain does not move.
    for (let i = 0; i < 200 && (await chain().getTransactionCount({ address: agent.wallet })) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await chain().getTransactionCount({ address: agent.wallet })).toBe(2);
    const res = await produceBlocksWhile(testEnv().rpcUrl, pending);
    expect(res.status, res.text).toBe(201);
    const { token, txs } = res.json as { token: Address; txs: Record<string, Hex> };
    expect(res.json).toMatchObject({ status: "running", wallet: agent.wallet, charterHash: charterHash(CHARTER), prospectus: `/p/${agent.id}` });
    // The answers are the documented schemas', and no more: the launch's, and the agent's with its launch.
    expect(launchedResponse.strict().parse(res.json)).toEqual(res.json);
    const record = (await api.call("GET", `/api/v1/agents/${agent.id}`)).json;
    expect(agentResponse.strict().parse(record)).toEqual(record);
    expect(record.launch).toMatchObject({ symbol: "AGC", devBuyEth: "0.001", txs });

    // Platform fee: a transfer of 0.002 ETH from the agent wallet to the operator.
    const fee = await chain().getTransaction({ hash: txs.platformFee! });
    expect(getAddress(fee.from)).toBe(agent.wallet);
    expect(getAddress(fee.to!)).toBe(OPERATOR);
    expect(fee.value).toBe(parseEther("0.002"));

    // Deploy: sent by the agent wallet, which is the token admin.
    const deploy = await chain().getTransactionReceipt({ hash: txs.deploy! });
    expect(getAddress(deploy.from)).toBe(agent.wallet);
    const created = parseTokenCreated(deploy, contracts().launcher);
    expect(created).toMatchObject({
      token,
      tokenAdmin: agent.wallet,
      msgSender: agent.wallet,
      name: "Agent Coin",
      symbol: "AGC",
      pairedToken: contracts().usdc,
    });
    expect(JSON.parse(created.metadata)).toEqual({ description: "Run by Ada" });
    const rewards = await chain().readContract({ address: contracts().lpLocker, abi: clankerLpLockerAbi, functionName: "tokenRewards", args: [token] });
    expect(rewards.rewardRecipients.map((r) => getAddress(r))).toEqual([OPERATOR, getAddress(devnetAs(1).account.address)]);
    expect(rewards.rewardBps).toEqual([9000, 1000]);

    // Dev buy: after round 1's auction block (launch + 2, nobody bid), once the sniper fee has decayed; the agent wallet holds the token.
    expect(txs.devBuy).toMatch(/^0x/);
    const devBuy = await chain().getTransactionReceipt({ hash: txs.devBuy! });
    expect(devBuy.blockNumber).toBeGreaterThan(deploy.blockNumber + 2n);
    const at = async (blockNumber: bigint) => (await chain().getBlock({ blockNumber })).timestamp;
    expect((await at(devBuy.blockNumber)) - (await at(deploy.blockNumber))).toBeGreaterThanOrEqual(15n);
    const { rows: waited } = await api.deps.services.pool.query(
      "SELECT reason FROM engine.agent_log WHERE decision = 'dev-buy-waits' AND data->>'agentId' = $1",
      [agent.id],
    );
    expect(waited.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^the dev buy waits: the pool's sniper auction runs \(round 1, auction block \d+\): no swap until a block after it$/),
      expect.stringMatching(/^the dev buy waits: the pool's sniper fee \(\d+ pips now\) decays until /),
    ]);
    expect(await chain().readContract({ address: token, abi: erc20BalanceAbi, functionName: "balanceOf", args: [agent.wallet] })).toBeGreaterThan(0n);

    // Enrolment by the operator, with the charter's split and hash.
    const enrol = await chain().getTransactionReceipt({ hash: txs.enroll! });
    expect(getAddress(enrol.from)).toBe(OPERATOR);
    const e = await chain().readContract({ address: contracts().registry, abi: registryAbi, functionName: "enrollment", args: [token] });
    expect(getAddress(e[0])).toBe(getAddress(devnetAs(1).account.address));
    expect([e[2], e[3], e[4]]).toEqual([3000, 5500, 1000]);
    expect(e[5]).toBe(charterHash(CHARTER));
    expect(await chain().getBalance({ address: OPERATOR })).toBeGreaterThan(operatorBefore); // fee in, minus the enrolment's gas

    // Activation credit, mandate for the workers, log, immutability.
    const pool = api.deps.services.pool;
    const credit = await pool.query("SELECT * FROM engine.agent_credits WHERE agent_id = $1", [agent.id]);
    expect(credit.rows).toMatchObject([{ kind: "activation", currency: "ETH", amount: parseEther("0.002").toString(), tx_hash: txs.platformFee }]);
    const engineDb = openEngineDb(databaseUrl);
    try {
      const mandate = await mandateForToken(engineDb.db, token);
      expect(mandate).toMatchObject({
        agentId: agent.id,
        strategy: "momentum",
        deskPairIndex: 1,
        maxLeverage: 4n * 10n ** 10n,
        maxDrawdownBps: 1500,
        buybackMinUsdc: 20_000_000n,
      });
      // What the desk and buyback workers read.
      const workers = await mandateFor(engineDb.db, api.deps.services.config, token);
      expect(workers).toMatchObject({ deskPairIndex: 1, maxLeverage: 4n * 10n ** 10n, maxDrawdownBps: 1500, takeProfitBps: 1000, buybackMinUsdc: 20_000_000n });
      const other = await mandateForToken(engineDb.db, OPERATOR);
      expect(other.agentId).toBeNull();
    } finally {
      await engineDb.close();
    }
    const stored = await pool.query("SELECT * FROM engine.token_mandates WHERE token = $1", [token]);
    expect(stored.rows[0]).toMatchObject({ desk_pair_index: 1, max_drawdown_bps: 1500 });
    const log = await pool.query("SELECT decision FROM engine.agent_log WHERE data->>'agentId' = $1 ORDER BY id", [agent.id]);
    expect(log.rows.map((r) => r.decision)).toEqual([
      "charter-locked",
      "platform-fee-paid",
      "token-deployed",
      "dev-buy-waits", // the auction rounds
      "dev-buy-waits", // the sniper fee's decay
      "dev-buy",
      "enrolled",
      "activated",
    ]);

    const view = await api.call("GET", `/api/v1/agents/${agent.id}`);
    expect(view.json).toMatchObject({ status: "running", token, launch: { name: "Agent Coin", symbol: "AGC", devBuyEth: "0.001", txs } });
    const again = await api.call("POST", `/api/v1/agents/${agent.id}/charter/default`, { token: alice });
    expect(again.status).toBe(409);
    expect(again.json.error).toMatch(/immutable/);
    expect((await launch(agent.id, { name: "Agent Coin", symbol: "AGC" })).status).toBe(409);
  });

  it("a deploy revert → 502 with the reason; the agent stays retryable and launches once fixed", async () => {
    const operator = devnetAs(0);
    const agent = await newAgent("default");
    await fund(agent.wallet, parseEther("0.05"));
    await operator.write(contracts().launcher, deprecatedAbi, "setDeprecated", [true]);
    try {
      const res = await launch(agent.id, { name: "Retry", symbol: "RTY" });
      expect(res.status, res.text).toBe(502);
      expect(res.json.error).toBe("deploy reverted: Deprecated()");
      const view = (await api.call("GET", `/api/v1/agents/${agent.id}`)).json;
      expect(view).toMatchObject({ status: "failed", statusReason: "deploy reverted: Deprecated()", token: null });
      expect(await nonceOf(agent.wallet)).toBe(0); // caught before the fee was paid
    } finally {
      await operator.write(contracts().launcher, deprecatedAbi, "setDeprecated", [false]);
    }
    const retried = await launch(agent.id, { name: "Retry", symbol: "RTY" });
    expect(retried.status, retried.text).toBe(201);
    expect(retried.json.status).toBe("running");
    expect(await nonceOf(agent.wallet)).toBe(2);
  });
});

describe("crash between steps", () => {
  const child = (agentId: string, crashAt: string) =>
    runTs(CHILD, {
      ...serviceEnv(databaseUrl, { AGENT_KEY_SECRET }),
      AGENT_ID: agentId,
      ENGINE_CRASH_AT: crashAt,
      LAUNCH_PARAMS: JSON.stringify({ name: "Phoenix", symbol: "PHX", image: "", description: "", devBuyWei: "0" }),
    });

  it("killed after the deploy was broadcast: the launch resumes without a second deployment", async () => {
    const agent = await newAgent();
    await fund(agent.wallet, parseEther("0.05"));
    const crashed = await child(agent.id, "after-broadcast:2");
    expect(crashed.signal, crashed.stderr + crashed.stdout).toBe("SIGKILL");
    const pool = api.deps.services.pool;
    const row = (await pool.query("SELECT status, token, fee_tx FROM engine.agents WHERE id = $1", [agent.id])).rows[0];
    expect(row).toMatchObject({ status: "launching", token: null });
    expect(row.fee_tx).toMatch(/^0x/);
    const intents = (await pool.query("SELECT key, status FROM engine.tx_intents WHERE agent_id = $1 ORDER BY id", [agent.id])).rows;
    expect(intents).toEqual([
      { key: `agent:${agent.id}:platform-fee`, status: "mined" },
      { key: `agent:${agent.id}:deploy:1`, status: "broadcast" },
    ]);
    expect(await deploymentsBy(agent.wallet)).toHaveLength(1); // mined before the crash

    const res = await launchAfterKill(agent.id, { name: "Something else", symbol: "ELSE" });
    expect(res.status, res.text).toBe(201);
    expect(await nonceOf(agent.wallet)).toBe(2);
    const deployed = await deploymentsBy(agent.wallet);
    expect(deployed).toHaveLength(1);
    expect(getAddress(deployed[0]!.args.tokenAddress!)).toBe(res.json.token);
    // The launch kept the body it started with.
    expect((await api.call("GET", `/api/v1/agents/${agent.id}`)).json.launch).toMatchObject({ name: "Phoenix", symbol: "PHX" });
  });

  it("killed after the enrolment was signed: the stored transaction is sent once", async () => {
    const agent = await newAgent();
    await fund(agent.wallet, parseEther("0.05"));
    const crashed = await child(agent.id, "after-sign:3");
    expect(crashed.signal, crashed.stderr + crashed.stdout).toBe("SIGKILL");
    const pool = api.deps.services.pool;
    const enrol = async () =>
      (await pool.query("SELECT key, status, tx_hash, nonce FROM engine.tx_intents WHERE key LIKE $1", [`agent:${agent.id}:enroll:%`])).rows;
    const before = await enrol();
    expect(before).toMatchObject([{ key: `agent:${agent.id}:enroll:1`, status: "signed" }]);
    expect((await pool.query("SELECT status, token FROM engine.agents WHERE id = $1", [agent.id])).rows[0].status).toBe("launched");

    const res = await launchAfterKill(agent.id, { name: "Phoenix", symbol: "PHX" });
    expect(res.status, res.text).toBe(201);
    const after = await enrol();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ status: "mined", tx_hash: before[0].tx_hash, nonce: before[0].nonce });
    expect(res.json.txs.enroll).toBe(before[0].tx_hash);
    expect(await deploymentsBy(agent.wallet)).toHaveLength(1);
    const e = await chain().readContract({ address: contracts().registry, abi: registryAbi, functionName: "enrollment", args: [res.json.token] });
    expect(e[5]).toBe(charterHash(CHARTER));
  });

  it("two launch calls at once: one runs, the other is refused", async () => {
    const agent = await newAgent();
    await fund(agent.wallet, parseEther("0.05"));
    const [a, b] = await Promise.all([launch(agent.id, { name: "Twin", symbol: "TWN" }), launch(agent.id, { name: "Twin", symbol: "TWN" })]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect(await deploymentsBy(agent.wallet)).toHaveLength(1);
  });
});

describe("a reorg after the launch", () => {
  it("the chain forgets every launch step: the finality watcher re-mines the same bytes in order, and the launch stands as recorded", async () => {
    const agent = await newAgent();
    await fund(agent.wallet, parseEther("0.05"));
    const snapshot = await rpc<Hex>(testEnv().rpcUrl, "evm_snapshot");
    // No dev buy here: replayed right after the deploy, it would land in the pool's no-trade blocks.
    const res = await launch(agent.id, { name: "Reorged Coin", symbol: "RGC" });
    expect(res.status, res.text).toBe(201);
    const { token, txs } = res.json as { token: Address; txs: Record<string, Hex> };
    const { rows: steps } = await api.deps.services.pool.query(
      "SELECT key, signer, tx_hash FROM engine.tx_intents WHERE agent_id = $1 OR key LIKE $2 ORDER BY id",
      [agent.id, `%${agent.id}%`],
    );
    expect(steps.length).toBeGreaterThanOrEqual(3); // platform fee, deploy, enrolment

    // The chain forgets the launch, then grows past it.
    expect(await rpc<boolean>(testEnv().rpcUrl, "evm_revert", [snapshot])).toBe(true);
    await rpc(testEnv().rpcUrl, "anvil_mine", ["0x2"]);
    expect(await chain().getCode({ address: token })).toBeUndefined();

    const db = openEngineDb(databaseUrl, "launch-reorg-test");
    try {
      const report = await checkFinality({ db: db.db, publicClient: chain(), log: createLogger("finality", "error"), confirmations: 0, rewind: rewindEngine });
      expect(report.reopened).toEqual(expect.arrayContaining(steps.map((s) => s.key)));
      // Same signed bytes, mined again in their order: the same hashes, the same token.
      // (Sent again as they were; under load the node may take a moment to mine them.)
      for (const hash of Object.values(txs).filter(Boolean))
        expect((await chain().waitForTransactionReceipt({ hash, timeout: 30_000, pollingInterval: 100 })).status).toBe("success");
      expect(await api.deps.services.pipeline.settleReorged()).toEqual(expect.arrayContaining(steps.map((s) => s.key)));
      const again = await checkFinality({ db: db.db, publicClient: chain(), log: createLogger("finality", "error"), confirmations: 0, rewind: rewindEngine });
      expect(again.lost).toEqual([]);
      const { rows } = await db.pool.query("SELECT key, status, reorgs FROM engine.tx_intents WHERE key = ANY($1)", [steps.map((s) => s.key)]);
      for (const r of rows) expect(r).toMatchObject({ status: "mined", reorgs: 1 });
    } finally {
      await db.close();
    }
    expect(await chain().getCode({ address: token })).toMatch(/^0x.+/);
    expect(await deploymentsBy(agent.wallet)).toHaveLength(1);
    const e = await chain().readContract({ address: contracts().registry, abi: registryAbi, functionName: "enrollment", args: [token] });
    expect(e[5]).toBe(charterHash(CHARTER));
    const record = await api.call("GET", `/api/v1/agents/${agent.id}`);
    expect(record.json).toMatchObject({ status: "running", token });
  });
});
