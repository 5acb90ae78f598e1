/** The eight workers of the spec's schedule, the auditor of the public reconciliation and the webhook sender, by name. */
import { assetEngine } from "./asset-engine.js";
import { auditor } from "./auditor.js";
import { buybackEngine } from "./buyback-engine.js";
import { creatorBuyback } from "./creator-buyback.js";
import { deskManager } from "./desk-manager.js";
import { deskRisk } from "./desk-risk.js";
import { feeClaimer } from "./fee-claimer.js";
import { priceSampler } from "./price-sampler.js";
import { profitChecker } from "./profit-checker.js";
import type { Worker, WorkerName } from "./types.js";
import { webhooks } from "./webhooks.js";

export const WORKERS: Record<WorkerName, Worker> = {
  "price-sampler": priceSampler,
  "fee-claimer": feeClaimer,
  "desk-manager": deskManager,
  "profit-checker": profitChecker,
  "creator-buyback": creatorBuyback,
  "buyback-engine": buybackEngine,
  "asset-engine": assetEngine,
  "desk-risk": deskRisk,
  auditor,
  webhooks,
};

export * from "./types.js";
