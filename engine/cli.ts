/**
 * Operator CLI (`npm run engine -- <command>`):
 *   run <worker>       one cycle of one worker in this process (refused while an engine runs)
 *   request <worker>   ask the running engine for one cycle and wait for its outcome
 *   reconcile          the startup reconciliation alone
 *   health             worker health, RPC status, failed transactions
 *   ledger             totals per leg and the invariant audit
 *   audit [--settle S] the three-way audit: ledger vs indexed facts vs chain balances; with
 *                      `--settle`, audited again (every quarter second, up to S seconds) until
 *                      nothing is in flight: a busy engine is idle only between its cycles
 *   preflight          the gTrade v10 preflight against the configured diamond (eth_call only):
 *                      every check in words; exits 1 when one fails (no database needed)
 *   launch-protocol-token --name N --symbol S [--market-cap-usdc 10000] [--image URL] [--dry-run] [--yes]
 *                      launches the protocol token through the configured launcher (asks first)
 * Prints words, every amount in whole units with its currency (`--raw` adds base units beside
 * them); `--json` prints the exact JSON in base units for scripts. Exits 1 when the cycle
 * failed, an invariant is violated or the audit finds a difference; 3 when `audit --settle`
 * found no moment with nothing in flight (the last report is printed).
 *
 * With DATABASE_URL unset it reads the connection file `npm start` writes (`.data/connection.json`),
 * so the commands work beside a running `npm start` with no variables set.
 */
import { join } from "node:path";
import { type Config, loadConfigOrExit } from "../common/config.js";
import { CONNECTION_FILE, dataDir, withConnectionFile } from "../common/connection-file.js";
import { createLogger } from "../common/logger.js";
import { openEngineDb } from "../core/db/client.js";
import { migrate } from "../core/db/migrations.js";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { auditFromConfig, auditUntilSettled, recordOpeningBalance } from "../core/audit.js";
import { createChainClients } from "../core/chain/client.js";
import { TxPipeline } from "../core/chain/pipeline/index.js";
import { dryRunVerdict, launchProtocolToken, planProtocolToken } from "../core/launch/protocol-token.js";
import type { Logger } from "../common/logger.js";
import { USDC_DECIMALS, parseDecimal } from "../common/money.js";
import { createEngine } from "./runtime/engine.js";
import { parseFaults } from "../core/faults.js";
import { readWorkerHealth } from "../core/health.js";
import { acquireLeadership } from "./runtime/leader.js";
import { readLease } from "../core/leadership.js";
import { checkLedgerInvariants } from "../core/ledger/invariants.js";
import { ledgerTotals } from "../core/ledger/totals.js";
import { awaitWorkerRun, requestWorkerRun } from "./runtime/run-once.js";
import { WORKER_NAMES, isWorkerName } from "./workers/index.js";
import { type Format, formatAudit, formatLedger, formatValue } from "./cli-format.js";
import { stringifyJson } from "../common/json.js";
import { createPublicClient, http } from "viem";
import { formatGainsPreflight, gainsPreflightFromConfig } from "./perps/gains-preflight.js";

const USAGE = `usage: npm run engine -- <run|request> <worker> | reconcile | health | ledger | audit [--settle SECONDS] | preflight | launch-protocol-token --name N --symbol S [--dry-run] [--yes]\nworkers: ${WORKER_NAMES.join(", ")}`;

const print = (value: unknown) => process.stdout.write(`${stringifyJson(value, 2)}\n`);

/** Output flags, taken out of the arguments wherever they stand. */
function outputFlags(argv: string[]): { rest: string[]; json: boolean; format: Format } {
  const json = argv.includes("--json");
  const raw = argv.includes("--raw");
  return { rest: argv.filter((a) => a !== "--json" && a !== "--raw"), json, format: { raw } };
}

/** `--settle S`: how long `audit` may wait for a moment with nothing in flight (NaN: not a number of seconds). */
function settleSeconds(argv: string[]): number | undefined {
  const i = argv.indexOf("--settle");
  if (i < 0) return undefined;
  const value = Number(argv[i + 1]);
  return Number.isFinite(value) && value >= 0 && argv[i + 1] !== "" ? value : Number.NaN;
}

async function main(allArgs: string[]): Promise<number> {
  const { rest: argv, json, format } = outputFlags(allArgs);
  const [command, arg] = argv;
  /** Words by default; `--json` for the exact JSON. */
  const show = (value: unknown, words: () => string = () => formatValue(value, format).join("\n")) =>
    json ? print(value) : process.stdout.write(`${words()}\n`);
  const config = loadConfigOrExit(withConnectionFile(process.env));
  const log = createLogger("engine-cli", config.logLevel, config.logFormat);
  if (command === "preflight") return preflightCommand(config, json);
  if (!config.databaseUrl) {
    const file = join(dataDir(process.env), CONNECTION_FILE);
    process.stderr.write(`DATABASE_URL is not set and there is no ${file}: run \`npm start\` first, or set DATABASE_URL\n`);
    return 1;
  }

  if (command === "health" || command === "ledger" || command === "request" || command === "audit") {
    const settle = command === "audit" ? settleSeconds(argv) : undefined;
    if (Number.isNaN(settle)) {
      process.stderr.write(`--settle takes a number of seconds\n${USAGE}\n`);
      return 2;
    }
    const db = openEngineDb(config.databaseUrl, "launchpad-engine-cli");
    try {
      await migrate(db.pool);
      if (command === "health") show(await readWorkerHealth(db.pool));
      else if (command === "audit") {
        const report = await auditUntilSettled(() => auditFromConfig(config, db), settle);
        show(report, () => formatAudit(report, format));
        if (!report.ok) return 1;
        return settle !== undefined && !report.settled ? 3 : 0;
      } else if (command === "ledger") {
        const report = await checkLedgerInvariants(db.db);
        const totals = await ledgerTotals(db.db);
        show({ totals, invariants: report }, () => formatLedger(totals, report, format));
        return report.ok ? 0 : 1;
      } else {
        if (!arg || !isWorkerName(arg)) throw new Error(USAGE);
        const state = await awaitWorkerRun(db.pool, await requestWorkerRun(db.pool, arg));
        show(state);
        return state?.ok ? 0 : 1;
      }
      return 0;
    } finally {
      await db.close();
    }
  }

  if (command === "launch-protocol-token") return launchProtocolTokenCommand(config, log, argv.slice(1));

  if (command !== "run" && command !== "reconcile") {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (command === "run" && (!arg || !isWorkerName(arg))) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  // The operator's nonces belong to one process at a time: take the leadership lease (for the
  // length of this command, fenced like an engine) or refuse while an engine leads.
  const leadership = await acquireLeadership(config.databaseUrl, log, { ttlMs: config.leaderLeaseSeconds * 1_000, once: true });
  if (!leadership) {
    const db = openEngineDb(config.databaseUrl, "launchpad-engine-cli");
    const lease = await readLease(db.db).catch(() => undefined);
    await db.close();
    process.stderr.write(
      `an engine is running (${lease ? `${lease.holder} leads, epoch ${lease.epoch}` : "it holds the leadership lease"}); use: npm run engine -- request ${arg ?? "<worker>"}\n`,
    );
    return 1;
  }
  try {
    const engine = await createEngine({ config, log, faults: parseFaults(process.env.ENGINE_CRASH_AT, log), fence: leadership.fence });
    try {
      if (command === "reconcile") {
        show(await engine.reconcile());
        return 0;
      }
      // As at an engine start: the wallet's opening balances are booked once, before any cycle moves money.
      const { ctx } = engine;
      await recordOpeningBalance({
        db: ctx.db,
        pool: ctx.pool,
        publicClient: ctx.publicClient,
        operator: ctx.operator,
        usdc: ctx.contract("usdc"),
        weth: ctx.contract("weth"),
      });
      const outcome = await engine.runOnce(arg as (typeof WORKER_NAMES)[number]);
      show(outcome);
      return outcome.ok ? 0 : 1;
    } finally {
      await engine.stop();
    }
  } finally {
    await leadership.release();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

/**
 * `preflight`: the gTrade v10 checks the engine runs before each desk cycle when PERPS_VENUE is
 * gains-v10, against the configured diamond (the devnet's twin, or Base's diamond on chain 8453),
 * whatever the configured venue: so Base's diamond can be checked before the venue is switched on.
 */
async function preflightCommand(config: Config, json: boolean): Promise<number> {
  const publicClient = createPublicClient({ transport: http(config.rpcUrl, { retryCount: 1 }) });
  const result = await gainsPreflightFromConfig(publicClient, config);
  if (json) print({ chainId: config.chainId, venue: config.perpsVenue, ...result });
  else process.stdout.write(`${formatGainsPreflight(result, config)}\n`);
  return result.ok ? 0 : 1;
}

/** `launch-protocol-token`: simulate and print; with confirmation (or --yes), send and print the address to configure. */
async function launchProtocolTokenCommand(config: Config, log: Logger, args: string[]): Promise<number> {
  let options;
  try {
    options = parseArgs({
      args,
      options: {
        name: { type: "string" },
        symbol: { type: "string" },
        image: { type: "string" },
        "market-cap-usdc": { type: "string" },
        "dry-run": { type: "boolean" },
        yes: { type: "boolean" },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!options.name || !options.symbol) {
    process.stderr.write(`--name and --symbol are required\n${USAGE}\n`);
    return 2;
  }
  let startingMarketCap: bigint | undefined;
  if (options["market-cap-usdc"] !== undefined) {
    try {
      startingMarketCap = parseDecimal(options["market-cap-usdc"], USDC_DECIMALS);
    } catch {
      process.stderr.write(`--market-cap-usdc: expected a decimal amount of USDC (got "${options["market-cap-usdc"]}")\n`);
      return 2;
    }
  }
  if (!config.databaseUrl) throw new Error("DATABASE_URL is not set");
  const db = openEngineDb(config.databaseUrl, "launchpad-engine-cli");
  try {
    await migrate(db.pool);
    const pipeline = new TxPipeline({ pool: db.pool, clients: createChainClients(config), log });
    const deps = { config, pipeline };
    const plan = await planProtocolToken(deps, { name: options.name, symbol: options.symbol, image: options.image, startingMarketCap });
    const summary = {
      chainId: config.chainId,
      launcher: plan.launcher,
      operator: plan.operator,
      pairedToken: plan.pairedToken,
      startingMarketCapUsdc: plan.startingMarketCapUsdc,
      lpFeesToOperator: "100%",
      enrolled: false,
      token: plan.token,
    };
    if (options["dry-run"]) {
      const verdict = dryRunVerdict(plan, options.symbol);
      print({ plan: summary, config: plan.description, existing: plan.existing, dryRun: verdict });
      process.stderr.write(`dry run: ${verdict.message}\n`);
      return 0;
    }
    print({ plan: summary, config: plan.description });
    if (plan.alreadyLaunched) {
      print({ launched: { token: plan.token }, configure: `PROTOCOL_TOKEN_ADDRESS=${plan.token}`, note: "already launched by an earlier run; nothing sent" });
      return 0;
    }
    if (!options.yes) {
      if (!process.stdin.isTTY) {
        process.stderr.write("not a terminal: add --yes to launch without the confirmation prompt\n");
        return 2;
      }
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await rl.question(`launch ${options.symbol} on chain ${config.chainId} from ${plan.operator}? [y/N] `);
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        process.stderr.write("not launched\n");
        return 1;
      }
    }
    const launched = await launchProtocolToken(deps, plan);
    print({ launched, configure: `PROTOCOL_TOKEN_ADDRESS=${launched.token}` });
    return 0;
  } finally {
    await db.close();
  }
}
