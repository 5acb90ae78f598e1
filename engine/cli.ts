/**
 * Operator CLI (`npm run engine -- <command>`):
 *   run <worker>       one cycle of one worker in this process (refused while an engine runs)
 *   request <worker>   ask the running engine for one cycle and wait for its outcome
 *   reconcile          the startup reconciliation alone
 *   health             worker health, RPC status, failed transactions
 *   ledger             totals per leg and the invariant audit
 *   audit              the three-way audit: ledger vs indexed facts vs chain balances
 * Prints JSON; exits 1 when the cycle failed or an invariant is violated.
 *
 * With DATABASE_URL unset it reads the connection file `npm start` writes (`.data/connection.json`),
 * so the commands work beside a running `npm start` with no variables set.
 */
import { join } from "node:path";
import pg from "pg";
import { loadConfigOrExit } from "../common/config.js";
import { CONNECTION_FILE, dataDir, withConnectionFile } from "../common/connection-file.js";
import { createLogger } from "../common/logger.js";
import { openEngineDb } from "./db/client.js";
import { migrate } from "./db/migrations.js";
import { auditFromConfig } from "./audit.js";
import { createEngine } from "./engine.js";
import { parseFaults } from "./faults.js";
import { readWorkerHealth } from "./health.js";
import { ENGINE_LOCK_KEY } from "./leader.js";
import { checkLedgerInvariants, ledgerTotals } from "./ledger/ledger.js";
import { awaitWorkerRun, requestWorkerRun } from "./run-once.js";
import { WORKER_NAMES, isWorkerName } from "./workers/index.js";

const USAGE = `usage: npm run engine -- <run|request> <worker> | reconcile | health | ledger | audit\nworkers: ${WORKER_NAMES.join(", ")}`;

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`);

async function main(argv: string[]): Promise<number> {
  const [command, arg] = argv;
  const config = loadConfigOrExit(withConnectionFile(process.env));
  const log = createLogger("engine-cli", config.logLevel, config.logFormat);
  if (!config.databaseUrl) {
    const file = join(dataDir(process.env), CONNECTION_FILE);
    process.stderr.write(`DATABASE_URL is not set and there is no ${file}: run \`npm start\` first, or set DATABASE_URL\n`);
    return 1;
  }

  if (command === "health" || command === "ledger" || command === "request" || command === "audit") {
    const db = openEngineDb(config.databaseUrl, "launchpad-engine-cli");
    try {
      await migrate(db.pool);
      if (command === "health") print(await readWorkerHealth(db.pool));
      else if (command === "audit") {
        const report = await auditFromConfig(config, db);
        print(report);
        return report.ok ? 0 : 1;
      } else if (command === "ledger") {
        const report = await checkLedgerInvariants(db.db);
        print({ totals: await ledgerTotals(db.db), invariants: report });
        return report.ok ? 0 : 1;
      } else {
        if (!arg || !isWorkerName(arg)) throw new Error(USAGE);
        const state = await awaitWorkerRun(db.pool, await requestWorkerRun(db.pool, arg));
        print(state);
        return state?.ok ? 0 : 1;
      }
      return 0;
    } finally {
      await db.close();
    }
  }

  if (command !== "run" && command !== "reconcile") {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (command === "run" && (!arg || !isWorkerName(arg))) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  // The operator's nonces belong to one process at a time: take the leader lock or refuse.
  const lock = new pg.Client({ connectionString: config.databaseUrl, application_name: "launchpad-engine-cli" });
  await lock.connect();
  try {
    const { rows } = await lock.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [ENGINE_LOCK_KEY.toString()]);
    if (!rows[0]?.locked) {
      process.stderr.write(`an engine is running (it holds the leader lock); use: npm run engine -- request ${arg ?? "<worker>"}\n`);
      return 1;
    }
    const engine = await createEngine({ config, log, faults: parseFaults(process.env.ENGINE_CRASH_AT, log) });
    try {
      if (command === "reconcile") {
        print(await engine.reconcile());
        return 0;
      }
      const outcome = await engine.runOnce(arg as (typeof WORKER_NAMES)[number]);
      print(outcome);
      return outcome.ok ? 0 : 1;
    } finally {
      await engine.stop();
    }
  } finally {
    await lock.end().catch(() => {});
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
