/**
 * What the engine scenario suites share: an in-process engine on a private devnet, worker
 * cycles that must succeed, ledger sums, and the operator's claims read from the chain.
 */
import { type Address, getAddress } from "viem";
import { clankerFeeLockerAbi } from "../../common/abis/clanker.js";
import { createLogger } from "../../common/logger.js";
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
export async function startScenario(options: { faults?: Faults; logLevel?: string } = {}): Promise<Scenario> {
  const d = await startPrivateDevnet();
  const config = d.config();
  const operator = config.operator!;
  const engine = await createEngine({ config, log: createLogger("engine", (options.logLevel ?? "warn") as never), faults: options.faults, pipeline: { pollMs: 50, maxWaitMs: 30_000 } });
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
