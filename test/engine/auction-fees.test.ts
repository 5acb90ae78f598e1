/**
 * The sniper auction's WETH, on a private devnet with the engine and the indexer: a token is
 * launched with the operator and a creator as reward recipients, a trader wins its auction
 * block with a WETH bid, and the MEV module stores 80% of the bid for the recipients in the
 * fee locker (`StoreTokens`, no `ClaimedRewards`). The fee claimer's claim then books the
 * operator's share as that token's WETH fee, to the base unit (nothing unattributed), the
 * index shows the same, and the three-way audit finds no difference.
 */
import { type Abi, type Address, type Hex, type TransactionReceipt, encodeAbiParameters, getAddress, maxUint256, parseAbi, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { sniperAuctionAbi } from "../../common/abis/clanker-hook.js";
import { VIEWS_SCHEMA } from "../../common/constants.js";
import { auditThreeWay } from "../../core/audit.js";
import { buyToken, ensureRouterApproval, marketContracts } from "../../devnet/market.js";
import { advancePastAuction } from "../../devnet/protocol.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import * as act from "../helpers/actions.js";
import { startTestPonder } from "../helpers/env.js";
import { type Scenario, startScenario } from "./scenario.js";

const LAUNCHER = 3;
const BIDDER = 6;
const wethAbi = parseAbi(["function deposit() payable", "function approve(address, uint256) returns (bool)"]);
const bidType = [
  {
    type: "tuple",
    components: [
      { name: "payee", type: "address" },
      { name: "amount", type: "uint256" },
    ],
  },
] as const;

let sc: Scenario;
let ponder: Awaited<ReturnType<typeof startTestPonder>> | undefined;
let token: Address;
let auctionReceipt: TransactionReceipt;
let launchHash: Hex;
const bid = 2n * 10n ** 16n; // 0.02 WETH

beforeAll(async () => {
  sc = await startScenario();
  const { d } = sc;
  const launcher = d.as(LAUNCHER);
  const bidder = d.as(BIDDER);
  const m = marketContracts(d.deployments);
  await bidder.write(d.c.weth!, wethAbi, "deposit", [], bid);
  await bidder.write(d.c.weth!, wethAbi, "approve", [d.c.mevModule!, bid]);
  await ensureRouterApproval(bidder, m, d.c.usdc!, maxUint256 / 2n); // before the launch: no approval in the no-trade blocks

  const launched = await act.launchToken(launcher, d.c, {
    name: "Auctioned",
    symbol: "AUCW",
    operator: sc.operator,
    creator: launcher.account.address,
    auction: "keep",
  });
  token = launched.token;
  launchHash = launched.receipt.transactionHash;
  const info = await launcher.read<{ poolKey: { currency0: Address; currency1: Address; fee: number; tickSpacing: number; hooks: Address } }>(
    d.c.lpLocker!,
    clankerLpLockerAbi as Abi,
    "tokenRewards",
    [token],
  );
  const pool = { token, pairedToken: d.c.usdc!, poolKey: info.poolKey };
  // The two no-trade blocks, then the bid lands in the auction block.
  while ((await launcher.publicClient.getBlockNumber({ cacheTime: 0 })) < launched.receipt.blockNumber + 2n) {
    await launcher.publicClient.request({ method: "evm_mine" as never, params: [] as never });
  }
  const hookData = encodeAbiParameters(bidType, [{ payee: bidder.account.address, amount: bid }]);
  auctionReceipt = await bidder.publicClient.getTransactionReceipt({ hash: await buyToken(bidder, m, pool, 5_000_000n, hookData) });
  expect(auctionReceipt.blockNumber).toBe(launched.receipt.blockNumber + 3n);
  // Past the decaying fee, ordinary trading (the hook collects on every swap).
  await advancePastAuction(launcher.publicClient as never);
  await d.buy(BIDDER, token, 2_000n * 1_000_000n);
  await d.sell(BIDDER, token, (await d.balance(token, bidder.account.address)) / 2n);
  await d.buy(BIDDER, token, 1_000n * 1_000_000n);
}, 240_000);

afterAll(async () => {
  await ponder?.stop();
  await sc?.stop();
});

/** The operator's share of the bid, as the module stored it (`StoreTokens` sent by the module). */
function operatorShareStored(): bigint {
  const stores = parseEventLogs({ abi: clankerFeeLockerAbi, eventName: "StoreTokens", logs: auctionReceipt.logs }).filter(
    (l) => getAddress(l.args.sender) === getAddress(sc.d.c.mevModule!) && getAddress(l.args.feeOwner) === sc.operator,
  );
  return stores.reduce((a, l) => a + l.args.amount, 0n);
}

/** When the launch's decaying fee ends: the launch block's time plus the module's `secondsToDecay`, from its `FeeConfigSet`. */
async function decayEnd(): Promise<bigint> {
  const launch = await sc.d.as(1).publicClient.getTransactionReceipt({ hash: launchHash });
  const [config] = parseEventLogs({ abi: sniperAuctionAbi, eventName: "FeeConfigSet", logs: launch.logs });
  const block = await sc.d.as(1).publicClient.getBlock({ blockNumber: launch.blockNumber });
  return block.timestamp + config!.args.secondsToDecay;
}

describe("sniper auction proceeds", () => {
  it("the auction paid the recipients through the fee locker, with no ClaimedRewards", () => {
    const won = parseEventLogs({ abi: sniperAuctionAbi, eventName: "AuctionWon", logs: auctionReceipt.logs });
    expect(won.map((w) => w.args.paymentAmount)).toEqual([bid]);
    expect(parseEventLogs({ abi: clankerLpLockerAbi, eventName: "ClaimedRewards", logs: auctionReceipt.logs })).toEqual([]);
    expect(operatorShareStored()).toBeGreaterThan(0n);
  });

  it("the fee claimer books the operator's share as the auctioned token's WETH fee, nothing unattributed", async () => {
    await sc.run("fee-claimer");
    const share = operatorShareStored();
    const { rows } = await sc.engine.ctx.pool.query<{ amount: string; key: string }>(
      "SELECT amount::text, key FROM engine.ledger WHERE kind = 'fee-claimed' AND currency = 'WETH' AND token = $1 AND data->>'source' = 'sniper auction'",
      [token],
    );
    expect(rows.map((r) => BigInt(r.amount))).toEqual([share]);
    expect(rows[0]!.key).toMatch(/^auction:/);
    expect(await sc.sumRows("kind = 'unattributed' AND currency = 'WETH'")).toBe(0n);
    // Ledger = chain: every WETH the fee locker paid the operator is attributed.
    expect(await sc.sumRows("currency = 'WETH' AND kind IN ('fee-claimed', 'unattributed')")).toBe(await sc.claimedOnchain(sc.d.c.weth!));
  });

  it("the index shows the auction and the operator's WETH for the token; the three-way audit is clean", async () => {
    const { d, engine } = sc;
    ponder = await startTestPonder(d.databaseUrl, d.env());
    await waitForIndexed(ponder, await d.as(1).publicClient.getBlockNumber({ cacheTime: 0 }), 180_000);
    const q = async (text: string, params: unknown[]) => (await engine.ctx.pool.query(text, params)).rows;
    const lower = token.toLowerCase();
    expect(await q(`SELECT token, amount::text FROM ${VIEWS_SCHEMA}.auction`, [])).toEqual([{ token: lower, amount: String(bid) }]);
    const [fee] = await q(`SELECT to_operator::text, unclaimed::text FROM ${VIEWS_SCHEMA}.token_fee WHERE token = $1 AND currency = $2`, [
      lower,
      d.c.weth!.toLowerCase(),
    ]);
    // WETH reaches this USDC-paired token only through its auction.
    expect(fee).toEqual({ to_operator: String(operatorShareStored()), unclaimed: "0" });
    const kinds = (await q(`SELECT kind FROM ${VIEWS_SCHEMA}.activity WHERE token = $1 ORDER BY id`, [lower])).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(["auction-won", "auction-fees"]));

    // The token's page says when the auction ended and what it paid.
    const page = await (await fetch(`${ponder.url}/p/${token}`)).text();
    const line = /<p data-field="auction"[^>]*>([^<]*)<\/p>/.exec(page)?.[1];
    expect(line).toBe(
      `Sniper auction ended ${new Date(Number(await decayEnd()) * 1000).toISOString().replace(".000Z", "Z")} (block ${auctionReceipt.blockNumber} auctioned); won for 0.02 WETH, 80% of it to the reward recipients.`,
    );

    const report = await auditThreeWay({
      db: engine.ctx.db,
      pool: engine.ctx.pool,
      publicClient: engine.ctx.publicClient,
      operator: sc.operator,
      usdc: d.c.usdc!,
      weth: d.c.weth!,
      protocolToken: d.protocolToken,
      indexSchema: VIEWS_SCHEMA,
    });
    expect(report.checks).toContain("fees claimed: ledger vs indexed ClaimTokens");
    expect(report.differences).toEqual([]);
  });
});
