/**
 * What the engine scenario suites share: an in-process engine on a private devnet, worker
 * cycles that must succeed, ledger sums, the operator's claims read from the chain, and the
 * check that the engine converged with the chain after a reorg.
 */
import { type Address, getAddress } from "viem";
import { expect } from "vitest";
import { FeeIn, clankerFeeLockerAbi } from "../../common/abis/clanker.js";
import type { LaunchFees } from "../../common/deploy-config.js";
import * as act from "../helpers/actions.js";
import { auditThreeWay } from "../../core/audit.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { type Logger, createLogger } from "../../common/logger.js";
import { type Engine, createEngine } from "../../engine/runtime/engine.js";
import type { Faults } from "../../core/faults.js";
import type { WorkerName } from "../../engine/workers/index.js";
import { type PrivateDevnet, startPrivateDevnet } from "./devnet.js";

export type Scenario = {
  d: PrivateDevnet;
  engine: Engine;
  operator: Address;
  usdcToken: Address;
  wethToken: Address;
  /** One cycle of a worker; throws with its error when it fails. */
  run: (name: WorkerName) => Promise<Record<string, unknown>>;
  /** SUM(amount) of the ledger rows matching a SQL condition. */
  sumRows: (where: string, params?: unknown[]) => Promise<bigint>;
  /** Everything the fee locker paid the operator in `currency`, from the chain's ClaimTokens logs. */
  claimedOnchain: (currency: Address) => Promise<bigint>;
  stop: () => Promise<void>;
};

/** A private devnet and an engine on it, reconciled as at every engine start. */
export async function startScenario(
  options: {
    faults?: Faults;
    logLevel?: string;
    log?: Logger;
    confirmations?: number;
    env?: Record<string, string>;
    /** Runs on the devnet before the engine exists (a transaction from the operator's key then leaves the engine's nonces its own). */
    beforeEngine?: (d: PrivateDevnet) => Promise<unknown>;
  } = {},
): Promise<Scenario> {
  const d = await startPrivateDevnet();
  await options.beforeEngine?.(d);
  const config = { ...d.config(options.env), ...(options.confirmations === undefined ? {} : { confirmations: options.confirmations }) };
  const operator = config.operator!;
  const engine = await createEngine({
    config,
    log: options.log ?? createLogger("engine", (options.logLevel ?? "warn") as never),
    faults: options.faults,
    pipeline: { pollMs: 50, maxWaitMs: 30_000 },
  });
  await engine.reconcile();
  return {
    d,
    engine,
    operator,
    usdcToken: getAddress(d.c.usdcPairedToken!),
    wethToken: getAddress(d.c.wethPairedToken!),
    async run(name) {
      const outcome = await engine.runOnce(name);
      if (!outcome.ok) throw new Error(`${name} failed: ${outcome.error}`);
      return outcome.result as Record<string, unknown>;
    },
    async sumRows(where, params = []) {
      const { rows } = await engine.ctx.pool.query(`SELECT COALESCE(SUM(amount), 0)::text AS s FROM engine.ledger WHERE ${where}`, params);
      return BigInt(rows[0].s);
    },
    async claimedOnchain(currency) {
      const logs = await d.as(1).publicClient.getLogs({
        address: d.c.feeLocker,
        event: clankerFeeLockerAbi.find((e) => e.type === "event" && e.name === "ClaimTokens") as never,
        args: { feeOwner: operator, token: currency } as never,
        fromBlock: 0n,
        toBlock: "latest",
      });
      return (logs as unknown as { args: { amountClaimed: bigint } }[]).reduce((s, l) => s + l.args.amountClaimed, 0n);
    },
    async stop() {
      await engine.stop();
      await d.stop();
    },
  };
}

/**
 * After a reorg, the engine agrees with the chain: nothing lost is left to redo, nothing is
 * in flight, every mined intent's block is canonical, the ledger invariants hold, the ledger
 * equals what the fee locker paid the operator, and the three-way audit finds no difference.
 */
export async function expectConverged(sc: Scenario) {
  const { engine, d } = sc;
  const again = await engine.checkFinality();
  expect(again.lost).toEqual([]);
  const { rows } = await engine.ctx.pool.query("SELECT key, status FROM engine.tx_intents WHERE status IN ('pending', 'signed', 'broadcast')");
  expect(rows).toEqual([]);
  const { rows: mined } = await engine.ctx.pool.query("SELECT key, tx_hash, block_hash FROM engine.tx_intents WHERE status IN ('mined', 'reverted')");
  for (const r of mined) {
    const receipt = await d.as(1).publicClient.getTransactionReceipt({ hash: r.tx_hash });
    expect({ key: r.key, hash: receipt.blockHash }).toEqual({ key: r.key, hash: r.block_hash });
  }
  expect(await checkLedgerInvariants(engine.ctx.db)).toEqual({ ok: true, violations: [] });
  // Ledger = chain: every USDC and WETH the fee locker paid the operator, to the base unit.
  expect(await sc.sumRows("currency = 'USDC' AND kind IN ('fee-claimed', 'unattributed')")).toBe(await sc.claimedOnchain(d.c.usdc!));
  expect(await sc.sumRows("currency = 'WETH' AND kind IN ('fee-claimed', 'unattributed')")).toBe(await sc.claimedOnchain(d.c.weth!));
  // The three-way audit: the operator's USDC and WETH equal the legs that hold them, to the base unit.
  const audit = await auditThreeWay({
    db: engine.ctx.db,
    pool: engine.ctx.pool,
    publicClient: engine.ctx.publicClient,
    operator: sc.operator,
    usdc: d.c.usdc!,
    weth: d.c.weth!,
    protocolToken: d.protocolToken,
  });
  expect(audit.inFlight).toEqual([]);
  expect(audit.differences).toEqual([]);
  return audit;
}

/**
 * A creator token launched by anvil account 1 (the operator slot's admin) and enrolled by the
 * operator, account 2 its creator: the operator's slot 9050 bps and the creator's 950, both paid
 * in the paired token, as the engine routes them.
 */
export async function launchEnrolledToken(
  sc: Scenario,
  p: { name: string; symbol: string; fees?: Partial<LaunchFees> },
): Promise<{ token: Address; creator: Address }> {
  const { d, operator } = sc;
  const admin = d.as(1);
  const creator = getAddress(d.as(2).account.address);
  const launched = await act.launchToken(admin, d.c, {
    name: p.name,
    symbol: p.symbol,
    operator,
    creator,
    fees: p.fees,
    rewards: [
      { recipient: operator, admin: admin.account.address, bps: 9050, feeIn: FeeIn.Paired },
      { recipient: creator, admin: creator, bps: 950, feeIn: FeeIn.Paired },
    ],
  });
  const token = getAddress(launched.token);
  await act.enroll(d.as(0), d.c, token, creator);
  return { token, creator };
}
