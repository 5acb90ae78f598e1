/** Protocol registry: current enrolment per token and its full history. */
import { ponder } from "ponder:registry";
import { enrollment, enrollmentEvent, token as tokenTable } from "ponder:schema";
import type { Hex } from "viem";
import { creditAuctionsBeforeEnrolment } from "./auction.js";
import { adoptLaunch } from "./launcher.js";
import { addProtocolTotals, recordActivity } from "./lib.js";

type Event = { transaction: { hash: Hex }; block: { number: bigint; timestamp: bigint }; log: { logIndex: number } };

const history = (event: Event, token: Hex, kind: string) => ({
  id: `${event.transaction.hash}-${event.log.logIndex}`,
  token,
  kind,
  txHash: event.transaction.hash,
  blockNumber: event.block.number,
  timestamp: event.block.timestamp,
});

ponder.on("Registry:TokenEnrolled", async ({ event, context }) => {
  const a = event.args;
  const token = a.token.toLowerCase() as Hex;
  await context.db.insert(enrollment).values({
    token,
    creator: a.creator.toLowerCase() as Hex,
    protocolBps: a.protocolBps,
    assetBps: a.assetBps,
    perpBps: a.perpBps,
    creatorBps: a.creatorBps,
    charterHash: a.charterHash,
    active: true,
    halted: false,
    enrolledBlock: event.block.number,
    enrolledAt: event.block.timestamp,
    updatedAt: event.block.timestamp,
  });
  await context.db.insert(enrollmentEvent).values(history(event, token, "enrolled"));
  await addProtocolTotals(context.db, event.block, { tokensEnrolled: 1 });
  // Launched by someone else before its enrolment: its launch facts are written now (launcher.ts).
  if (!(await context.db.find(tokenTable, { address: token }))) await adoptLaunch(context, a.token, event.block);
  // Its creator's share of the auction rounds won before the enrolment.
  await creditAuctionsBeforeEnrolment(context, event, token);
  await recordActivity(context.db, event, "token-enrolled", token, {
    creator: a.creator,
    split: { protocolBps: a.protocolBps, assetBps: a.assetBps, perpBps: a.perpBps, creatorBps: a.creatorBps },
    charterHash: a.charterHash,
  });
});

ponder.on("Registry:TokenActiveSet", async ({ event, context }) => {
  const token = event.args.token.toLowerCase() as Hex;
  await context.db.update(enrollment, { token }).set({ active: event.args.active, updatedAt: event.block.timestamp });
  await context.db.insert(enrollmentEvent).values(history(event, token, event.args.active ? "active" : "inactive"));
});

ponder.on("Registry:TokenHaltedSet", async ({ event, context }) => {
  const token = event.args.token.toLowerCase() as Hex;
  const halted = event.args.halted;
  await context.db.update(enrollment, { token }).set({ halted, updatedAt: event.block.timestamp });
  await context.db.insert(enrollmentEvent).values(history(event, token, halted ? "halted" : "unhalted"));
  await recordActivity(context.db, event, halted ? "desk-halted" : "desk-unhalted", token, { halted });
});
