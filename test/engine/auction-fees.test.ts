/**
 * The sniper auction's WETH, on a private devnet with the engine and the indexer: a token is
 * launched with the operator and a creator as reward recipients, a trader wins two auction
 * rounds with WETH bids as the real module takes them (the payee in the hookData, the bid in
 * the gas price above the round's peg), round 3 expires, and the token is enrolled only after
 * (as an agent token is, after its dev buy). The MEV module stores 80% of each bid for the
 * recipients in the fee locker (`StoreTokens`, no `ClaimedRewards`). The fee claimer's claim
 * then books the operator's shares as that token's WETH fees, to the base unit (nothing
 * unattributed); the index shows the same, the creator's shares, the rounds and the decay from
 * the last won round; the three-way audit finds no difference.
 */
import { type Abi, type Address, type Hex, type TransactionReceipt, formatUnits, getAddress, maxUint256, parseAbi, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { encodeAuctionBid, sniperAuctionAbi } from "../../common/abis/clanker-hook.js";
import { poolIdOf } from "../../common/uniswap.js";
import { VIEWS_SCHEMA } from "../../common/constants.js";
import { auditThreeWay } from "../../core/audit.js";
import { buyToken, ensureRouterApproval, marketContracts } from "../../devnet/market.js";
import { advancePastAuction } from "../../devnet/protocol.js";
import { utcTime } from "../../api/pages/time.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import * as act from "../helpers/actions.js";
import { startTestPonder } from "../helpers/env.js";
import { type Scenario, startScenario } from "./scenario.js";

const LAUNCHER = 3;
const BIDDER = 6;
const wethAbi = parseAbi(["function deposit() payable", "function approve(address, uint256) returns (bool)"]);

let sc: Scenario;
let ponder: Awaited<ReturnType<typeof startTestPonder>> | undefined;
let token: Address;
const auctionReceipts: TransactionReceipt[] = [];
let launchBlock: bigint;
let poolId: Hex;
let creator: Address;
const bid = 2n * 10n ** 16n; // 0.02 WETH
const PER_GAS = 100_000_000_000_000n; // the module's paymentPerGasUnit

beforeAll(async () => {
  sc = await startScenario();
  const { d } = sc;
  const launcher = d.as(LAUNCHER);
  const bidder = d.as(BIDDER);
  const m = marketContracts(d.deployments);
  await bidder.write(d.c.weth!, wethAbi, "deposit", [], 2n * bid);
  await bidder.write(d.c.weth!, wethAbi, "approve", [d.c.mevModule!, 2n * bid]);
  await ensureRouterApproval(bidder, m, d.c.usdc!, maxUint256 / 2n); // before the launch: no approval in the no-trade blocks

  creator = launcher.account.address;
  const launched = await act.launchToken(launcher, d.c, {
    name: "Auctioned",
    symbol: "AUCW",
    operator: sc.operator,
    creator,
    auction: "keep",
  });
  token = launched.token;
  launchBlock = launched.receipt.blockNumber;
  const info = await launcher.read<{ poolKey: { currency0: Address; currency1: Address; fee: number; tickSpacing: number; hooks: Address } }>(
    d.c.lpLocker!,
    clankerLpLockerAbi as Abi,
    "tokenRewards",
    [token],
  );
  const pool = { token, pairedToken: d.c.usdc!, poolKey: info.poolKey };
  poolId = poolIdOf(info.poolKey);
  // Rounds 1 and 2 (launch + 2, launch + 4): the bid lands in each auction block, the gas price
  // above the round's peg paying `bid`.
  for (const auctionBlock of [launchBlock + 2n, launchBlock + 4n]) {
    while ((await launcher.publicClient.getBlockNumber({ cacheTime: 0 })) < auctionBlock - 1n) {
      await launcher.publicClient.request({ method: "evm_mine" as never, params: [] as never });
    }
    const gasPeg = await bidder.read<bigint>(d.c.mevModule!, sniperAuctionAbi as Abi, "gasPeg", [poolId]);
    const hash = await buyToken(bidder, m, pool, 5_000_000n, encodeAuctionBid(bidder.account.address), gasPeg + bid / PER_GAS);
    const r = await bidder.publicClient.getTransactionReceipt({ hash });
    expect(r.blockNumber).toBe(auctionBlock);
    auctionReceipts.push(r);
  }
  // Round 3 expires; past the decaying fee, the token is enrolled (after every round, as an agent token).
  await advancePastAuction(launcher.publicClient as never);
  await act.enroll(d.as(0), d.c, token, creator);
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

/** A recipient's shares of the bids, as the module stored them (`StoreTokens` sent by the module). */
function shareStored(owner: Address): bigint {
  return auctionReceipts
    .flatMap((r) => parseEventLogs({ abi: clankerFeeLockerAbi, eventName: "StoreTokens", logs: r.logs }))
    .filter((l) => getAddress(l.args.sender) === getAddress(sc.d.c.mevModule!) && getAddress(l.args.feeOwner) === getAddress(owner))
    .reduce((a, l) => a + l.args.amount, 0n);
}
const operatorShareStored = () => shareStored(sc.operator);

/** When the launch's decaying fee ends: the last won round's block time plus the module's `secondsToDecay`. */
async function decayEnd(): Promise<bigint> {
  const launch = await sc.d.as(1).publicClient.getBlock({ blockNumber: launchBlock, includeTransactions: true });
  const receipt = await sc.d.as(1).publicClient.getTransactionReceipt({ hash: (launch.transactions[0] as { hash: Hex }).hash });
  const [config] = parseEventLogs({ abi: sniperAuctionAbi, eventName: "FeeConfigSet", logs: receipt.logs });
  const lastWin = await sc.d.as(1).publicClient.getBlock({ blockNumber: auctionReceipts.at(-1)!.blockNumber });
  return lastWin.timestamp + config!.args.secondsToDecay;
}

describe("sniper auction proceeds", () => {
  it("each round won paid the recipients through the fee locker, with no ClaimedRewards", () => {
    const won = auctionReceipts.flatMap((r) => parseEventLogs({ abi: sniperAuctionAbi, eventName: "AuctionWon", logs: r.logs }));
    expect(won.map((w) => [w.args.paymentAmount, w.args.round])).toEqual([
      [bid, 1n],
      [bid, 2n],
    ]);
    for (const r of auctionReceipts) expect(parseEventLogs({ abi: clankerLpLockerAbi, eventName: "ClaimedRewards", logs: r.logs })).toEqual([]);
    expect(operatorShareStored()).toBeGreaterThan(0n);
    expect(shareStored(creator)).toBeGreaterThan(0n);
  });

  it("the fee claimer books the operator's share as the auctioned token's WETH fee, nothing unattributed", async () => {
    await sc.run("fee-claimer");
    const { rows } = await sc.engine.ctx.pool.query<{ amount: string; key: string }>(
      "SELECT amount::text, key FROM engine.ledger WHERE kind = 'fee-claimed' AND currency = 'WETH' AND token = $1 AND data->>'source' = 'sniper auction' ORDER BY id",
      [token],
    );
    expect(rows.map((r) => BigInt(r.amount)).reduce((a, b) => a + b, 0n)).toBe(operatorShareStored());
    expect(rows).toHaveLength(2);
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
    expect(await q(`SELECT token, amount::text, round FROM ${VIEWS_SCHEMA}.auction ORDER BY block_number`, [])).toEqual([
      { token: lower, amount: String(bid), round: 1 },
      { token: lower, amount: String(bid), round: 2 },
    ]);
    const [fee] = await q(`SELECT to_operator::text, to_creator::text, unclaimed::text FROM ${VIEWS_SCHEMA}.token_fee WHERE token = $1 AND currency = $2`, [
      lower,
      d.c.weth!.toLowerCase(),
    ]);
    // WETH reaches this USDC-paired token only through its auction; the creator's share counts though it was enrolled after every round.
    expect(fee).toEqual({ to_operator: String(operatorShareStored()), to_creator: String(shareStored(creator)), unclaimed: "0" });
    // The rounds as the module ran them: round 1's block, two won, round 3 expired, the decay from the last win.
    const lastWin = await d.as(1).publicClient.getBlock({ blockNumber: auctionReceipts.at(-1)!.blockNumber });
    const [config] = await q(
      `SELECT auction_block::text, last_auction_block::text, round, rounds_won, decay_starts_at::text, decay_ends_at::text FROM ${VIEWS_SCHEMA}.auction_config WHERE pool_id = $1`,
      [poolId],
    );
    expect(config).toEqual({
      auction_block: String(launchBlock + 2n),
      last_auction_block: String(launchBlock + 6n),
      round: 3,
      rounds_won: 2,
      decay_starts_at: String(lastWin.timestamp),
      decay_ends_at: String(await decayEnd()),
    });
    const kinds = (await q(`SELECT kind FROM ${VIEWS_SCHEMA}.activity WHERE token = $1 ORDER BY id`, [lower])).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(["auction-won", "auction-fees"]));

    // The token's page says when the auction ended and what every round won paid.
    const page = await (await fetch(`${ponder.url}/p/${token}`)).text();
    const line = /<p data-field="auction"[^>]*>([^<]*)<\/p>/.exec(page)?.[1];
    const blocks = auctionReceipts.map((r) => r.blockNumber).join(", ");
    expect(line).toBe(
      `Sniper auction ended ${utcTime(await decayEnd())} (block ${auctionReceipts[0]!.blockNumber} auctioned); won in 2 rounds for ${formatUnits(2n * bid, 18)} WETH in all (blocks ${blocks}), 80% of it to the reward recipients.`,
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
