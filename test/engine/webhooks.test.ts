/**
 * Webhooks end to end, on a private devnet with `CONFIRMATIONS=2`: ponder indexes the chain and
 * serves the API (the operator registers endpoints over HTTP), the engine's webhooks worker
 * fills the outbox and sends it, and real HTTP receivers (node:http servers) check every
 * delivery's signature with their copy of the secret, as a receiver should.
 *
 * - A final-only endpoint gets a burn once 2 blocks cover it; a pending subscriber gets it at
 *   once, and a retraction after a reorg (anvil snapshot/revert) removes it; the final-only
 *   endpoint never hears of the lost burn.
 * - A receiver checking with the wrong secret refuses every delivery: they retry, are
 *   dead-lettered after the (short) give-up window, listed for the operator, and /health and
 *   the metrics count them; queued again once the receiver is fixed, they arrive.
 * - A receiver down for a while: the deliveries back off and the backlog shows; once it is back,
 *   every one arrives, once per delivery id.
 * - The engine (a real `engine/main.ts` process) SIGKILLed while a receiver holds a delivery:
 *   the next engine sends it again (same id, same body), and every delivery arrives.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Address, type Hex, erc20Abi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhook, verifyWebhookSignature } from "../../common/webhook-signature.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { startTestPonder } from "../helpers/env.js";
import { rpc, runTs } from "./helpers.js";
import { type Scenario, startScenario } from "./scenario.js";

const USDC = 1_000_000n;
const TRADER = 5;
const KEY = "webhook-test-operator-key-0123";
const CONFIRMATIONS = 2;
/** Short backoff: the first retry after 200 ms, doubling up to 1 s. */
const WEBHOOK_ENV = { WEBHOOK_RETRY_BASE_MS: "200", WEBHOOK_RETRY_MAX_MS: "1000", WEBHOOK_GIVE_UP_SECONDS: "3600", WEBHOOK_TIMEOUT_MS: "3000" };

let sc: Scenario;
let ponder: Awaited<ReturnType<typeof startTestPonder>>;
let usdcToken: Address;
let wethToken: Address;

// ------------------------------------------------------------------ receivers

type Delivery = { id: string; event: string; body: string; json: any };

/** A webhook receiver: checks each signature with its secret (401 otherwise), records what it accepted. */
class Receiver {
  readonly accepted: Delivery[] = [];
  readonly refused: { id: string; reason: string }[] = [];
  secret = "";
  /** Called with each accepted delivery before it is answered; may hold the answer. */
  onDelivery: ((d: Delivery, res: ServerResponse) => boolean) | undefined;
  private server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url() {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Down: no connection is accepted (ECONNREFUSED), the open ones are cut. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  ids() {
    return this.accepted.map((d) => d.id);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const id = String(req.headers[DELIVERY_HEADER]);
    const check = verifyWebhookSignature(this.secret, req.headers[SIGNATURE_HEADER] as string | undefined, body);
    if (!check.ok) {
      this.refused.push({ id, reason: check.reason });
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: check.reason }));
      return;
    }
    const d = { id, event: String(req.headers[EVENT_HEADER]), body, json: JSON.parse(body) };
    this.accepted.push(d);
    if (this.onDelivery?.(d, res)) return;
    res.writeHead(200).end("ok");
  }
}

const receivers: Receiver[] = [];
async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
}

// ------------------------------------------------------------------ helpers

async function api(method: string, path: string, p: { json?: unknown; key?: string | null } = {}): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (p.key !== null) headers.authorization = `Bearer ${p.key ?? KEY}`;
  if (p.json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${ponder.url}/api/v1${path}`, { method, headers, body: p.json === undefined ? undefined : JSON.stringify(p.json) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function register(r: Receiver, body: Record<string, unknown>): Promise<string> {
  const created = await api("POST", "/webhooks", { json: { url: r.url, ...body } });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  expect(created.json.secret).toMatch(/^whsec_/);
  r.secret = created.json.secret;
  return created.json.id;
}

const chain = () => sc.d.as(1).publicClient;
const mine = (blocks: number) => rpc(sc.d.rpcUrl, "anvil_mine", [`0x${blocks.toString(16)}`]);

async function synced() {
  const head = await chain().getBlockNumber({ cacheTime: 0 });
  await waitForIndexed(ponder, head, 180_000).catch((error) => {
    throw new Error(`${error.message}\n${ponder.logs.slice(-30).join("\n")}`);
  });
}

/** A holder sends `amount` base units of `token` to the dead address: an organic burn. */
async function burn(token: Address, amount: bigint): Promise<Hex> {
  const trader = sc.d.as(TRADER);
  const hash = await trader.write(token, erc20Abi, "transfer", [DEAD_ADDRESS, amount]);
  await chain().waitForTransactionReceipt({ hash });
  return hash;
}

async function outbox(endpoint: string) {
  const { rows } = await sc.engine.ctx.pool.query<{
    id: string;
    phase: string;
    status: string;
    attempts: number;
    last_status: number | null;
    fact_key: string;
  }>("SELECT id::text, phase, status, attempts, last_status, fact_key FROM engine.webhook_deliveries WHERE endpoint_id = $1 ORDER BY id", [endpoint]);
  return rows;
}

/** Runs webhooks cycles in process until `done` holds (or fails after `ms`). */
async function cyclesUntil(what: string, done: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    await sc.run("webhooks");
    if (await done()) return;
    if (Date.now() > until) throw new Error(`webhooks: ${what} not reached in ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const delivered = async (endpoint: string) => (await outbox(endpoint)).every((d) => d.status === "delivered");
const factTx = (d: Delivery) => String(d.json.fact.txHash).toLowerCase();

beforeAll(async () => {
  sc = await startScenario({ confirmations: CONFIRMATIONS, logLevel: "error", env: WEBHOOK_ENV });
  ({ usdcToken, wethToken } = sc);
  // Tokens to burn, bought before any endpoint exists.
  await sc.d.buy(TRADER, usdcToken, 300n * USDC);
  await sc.d.buy(TRADER, wethToken, 300n * USDC);
  ponder = await startTestPonder(sc.d.databaseUrl, sc.d.env({ OPERATOR_API_KEY: KEY, RATE_LIMIT_SCALE: "1000" }));
  await synced();
}, 360_000);

afterAll(async () => {
  for (const r of receivers) await r.stop();
  await ponder?.stop();
  await sc?.stop();
});

describe("signatures", () => {
  it("the receiver's check accepts the secret's signature and refuses a wrong secret, a changed body, an old timestamp", () => {
    const body = JSON.stringify({ id: "1", event: "burn.final" });
    const now = Math.floor(Date.now() / 1000);
    const header = signWebhook("whsec_right", body, now);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature("whsec_right", header, body)).toEqual({ ok: true, timestamp: now });
    expect(verifyWebhookSignature("whsec_wrong", header, body)).toEqual({ ok: false, reason: "signature does not match" });
    expect(verifyWebhookSignature("whsec_right", header, body.replace("final", "pending"))).toEqual({ ok: false, reason: "signature does not match" });
    expect(verifyWebhookSignature("whsec_right", signWebhook("whsec_right", body, now - 3600), body)).toEqual({
      ok: false,
      reason: "timestamp outside the tolerance",
    });
    expect(verifyWebhookSignature("whsec_right", undefined, body)).toMatchObject({ ok: false });
    expect(verifyWebhookSignature("whsec_right", "t=1", body)).toMatchObject({ ok: false });
  });
});

describe("registering endpoints", () => {
  it("needs the operator key and valid input; the secret is answered once", async () => {
    const r = await receiver();
    expect((await api("POST", "/webhooks", { json: { url: r.url, events: ["burn"] }, key: null })).status).toBe(401);
    expect((await api("POST", "/webhooks", { json: { url: r.url, events: ["burn"] }, key: "wrong-key-wrong-key-wrong" })).status).toBe(403);
    for (const bad of [
      { url: "ftp://x.test/hook", events: ["burn"] },
      { url: r.url, events: [] },
      { url: r.url, events: ["bogus"] },
      { url: r.url, events: ["burn"], token: "0x12" },
      { url: r.url, events: ["burn"], extra: 1 },
    ]) {
      const refused = await api("POST", "/webhooks", { json: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.json.code).toBe("BAD_REQUEST");
    }
    const id = await register(r, { events: ["burn"], description: "scratch" });
    const listed = await api("GET", "/webhooks");
    expect(listed.status).toBe(200);
    const item = listed.json.items.find((e: { id: string }) => e.id === id);
    expect(item).toMatchObject({
      id,
      url: r.url,
      events: ["burn"],
      token: null,
      pending: false,
      description: "scratch",
      deliveries: { queued: 0, delivered: 0, dead: 0 },
    });
    expect(JSON.stringify(listed.json)).not.toContain("whsec_");
    expect((await api("DELETE", `/webhooks/${id}`)).json).toEqual({ id, deleted: true });
    expect((await api("DELETE", `/webhooks/${id}`)).status).toBe(404);
    expect((await api("DELETE", "/webhooks/nope")).status).toBe(400);
    expect((await api("GET", "/webhooks", { key: null })).status).toBe(401);
  });
});

describe("finality and reorgs", () => {
  it("a final-only endpoint gets a burn once final; a pending subscriber gets it at once, and its retraction after a reorg", async () => {
    const finalOnly = await receiver();
    const pending = await receiver();
    const finalId = await register(finalOnly, { events: ["burn"], token: usdcToken });
    const pendingId = await register(pending, { events: ["burn"], pending: true });

    const snapshot = await rpc<Hex>(sc.d.rpcUrl, "evm_snapshot");
    const lost = (await burn(usdcToken, 1_000n)).toLowerCase();
    await synced();
    await cyclesUntil("the pending burn delivered", () => pending.accepted.some((d) => d.event === "burn.pending" && factTx(d) === lost));
    const sentPending = pending.accepted.find((d) => factTx(d) === lost)!;
    expect(sentPending.json).toMatchObject({ id: sentPending.id, event: "burn.pending", phase: "pending", endpoint: pendingId, confirmations: CONFIRMATIONS });
    expect(sentPending.json.fact).toMatchObject({
      kind: "burn",
      token: usdcToken,
      data: { amount: "0.000000000000001", kind: "organic" },
      raw: { amount: "1000" },
    });
    // Not final yet: the final-only endpoint has nothing.
    expect(finalOnly.accepted).toEqual([]);

    // The chain forgets the burn; another burn takes its block on the new branch, then 3 more blocks.
    expect(await rpc<boolean>(sc.d.rpcUrl, "evm_revert", [snapshot])).toBe(true);
    const kept = (await burn(usdcToken, 2_500n)).toLowerCase();
    await mine(CONFIRMATIONS + 1);
    await synced();
    await cyclesUntil(
      "the retraction and the new branch's burn delivered",
      async () => (await delivered(pendingId)) && (await delivered(finalId)) && finalOnly.accepted.length > 0,
    );

    const retraction = pending.accepted.find((d) => d.event === "burn.retracted");
    expect(retraction, JSON.stringify(pending.accepted.map((d) => d.event))).toBeDefined();
    expect(retraction!.json.fact).toEqual(sentPending.json.fact);
    expect(retraction!.json.phase).toBe("retracted");
    // After the pending delivery it retracts.
    expect(pending.accepted.indexOf(retraction!)).toBeGreaterThan(pending.accepted.indexOf(sentPending));
    expect(pending.accepted.filter((d) => factTx(d) === kept).map((d) => d.event)).toContain("burn.final");
    // The final-only endpoint: the kept burn once, final; never the lost one.
    expect(finalOnly.accepted.map((d) => [d.event, factTx(d)])).toEqual([["burn.final", kept]]);
    expect(finalOnly.accepted[0]!.json.fact).toMatchObject({ token: usdcToken, data: { amount: "0.0000000000000025" }, raw: { amount: "2500" } });
    const final = finalOnly.accepted[0]!.json.fact;
    const receipt = await chain().getTransactionReceipt({ hash: kept as Hex });
    expect(final.blockNumber).toBe(Number(receipt.blockNumber));
    for (const r of [finalOnly, pending]) expect(new Set(r.ids()).size).toBe(r.accepted.length);
    await api("DELETE", `/webhooks/${finalId}`);
    await api("DELETE", `/webhooks/${pendingId}`);
  });
});

describe("failing receivers", () => {
  it("a receiver checking with the wrong secret refuses every delivery: dead-lettered, listed, counted; queued again once fixed, delivered", async () => {
    const r = await receiver();
    const id = await register(r, { events: ["burn"], token: wethToken });
    const right = r.secret;
    r.secret = "whsec_not-the-secret-the-service-signs-with";
    // This endpoint's deliveries give up after 2 s (24 h in production).
    const giveUp = sc.engine.ctx.config.webhooks.giveUpSeconds;
    sc.engine.ctx.config.webhooks.giveUpSeconds = 2;
    try {
      await burn(wethToken, 7_000n);
      await mine(CONFIRMATIONS);
      await synced();
      await cyclesUntil("the delivery dead-lettered", async () => (await outbox(id)).some((d) => d.status === "dead"), 30_000);
    } finally {
      sc.engine.ctx.config.webhooks.giveUpSeconds = giveUp;
    }
    expect(r.accepted).toEqual([]);
    expect(r.refused.length).toBeGreaterThanOrEqual(2);
    expect(r.refused.every((x) => x.reason === "signature does not match")).toBe(true);
    const [dead] = await outbox(id);
    expect(dead).toMatchObject({ status: "dead", last_status: 401 });

    const letters = await api("GET", `/webhooks/dead-letters?endpoint=${id}`);
    expect(letters.status).toBe(200);
    expect(letters.json.items).toEqual([
      expect.objectContaining({
        id: dead!.id,
        endpointId: id,
        event: "burn.final",
        phase: "final",
        lastStatus: 401,
        lastError: expect.stringContaining("signature does not match"),
      }),
    ]);
    expect(letters.json.items[0].payload.fact).toMatchObject({ kind: "burn", token: wethToken, raw: { amount: "7000" } });
    expect((await api("GET", "/webhooks/dead-letters", { key: null })).status).toBe(401);
    expect((await api("GET", "/webhooks/dead-letters?limit=0")).status).toBe(400);
    const health = await api("GET", "/health");
    expect(health.json.webhooks).toMatchObject({ dead: 1 });
    const metrics = await (await fetch(`${ponder.url}/api/v1/metrics`)).text();
    expect(metrics).toMatch(/^launchpad_webhook_deliveries_dead 1$/m);

    // The receiver is fixed; the operator queues the dead letter again.
    r.secret = right;
    expect((await api("POST", `/webhooks/dead-letters/${dead!.id}/retry`)).json).toEqual({ id: dead!.id, status: "queued" });
    expect((await api("POST", `/webhooks/dead-letters/${dead!.id}/retry`)).status).toBe(404);
    await cyclesUntil("the dead letter delivered", () => delivered(id));
    expect(r.ids()).toEqual([dead!.id]);
    expect((await api("GET", "/health")).json.webhooks).toMatchObject({ dead: 0 });
    await api("DELETE", `/webhooks/${id}`);
  });

  it("a receiver down for a while: the deliveries back off and show as backlog; once it is back, each arrives once", async () => {
    const r = await receiver();
    const id = await register(r, { events: ["burn"], token: usdcToken });
    await r.stop();
    const burns = [await burn(usdcToken, 11n), await burn(usdcToken, 12n), await burn(usdcToken, 13n)].map((h) => h.toLowerCase());
    await mine(CONFIRMATIONS);
    await synced();

    // 12 s down: past the backoff's 1 s ceiling many times over, so attempts are spaced, not one per cycle.
    const downFor = Date.now() + 12_000;
    await cyclesUntil("12 s of refused connections", () => Date.now() > downFor, 60_000);
    const waiting = await outbox(id);
    expect(waiting.map((d) => d.status)).toEqual(["queued", "queued", "queued"]);
    // Backoff: 200 ms doubling to 1 s over 12 s is about ten attempts, not one per cycle (~80).
    for (const d of waiting) expect(d.attempts).toBeGreaterThan(5);
    for (const d of waiting) expect(d.attempts).toBeLessThan(40);
    const health = await api("GET", "/health");
    expect(health.json.webhooks.queued).toBeGreaterThanOrEqual(3);
    expect(health.json.webhooks.retrying).toBeGreaterThanOrEqual(3);
    expect(health.json.webhooks.oldestQueuedSeconds).toBeGreaterThanOrEqual(10);
    expect(await (await fetch(`${ponder.url}/api/v1/metrics`)).text()).toMatch(/^launchpad_webhook_deliveries_queued [3-9]\d*$/m);

    await r.start(r.port);
    await cyclesUntil("every delivery after the receiver came back", () => delivered(id));
    expect(r.accepted.map(factTx).sort()).toEqual([...burns].sort());
    expect(new Set(r.ids()).size).toBe(3);
    expect(r.ids().sort()).toEqual(waiting.map((d) => d.id).sort());
    expect((await api("GET", "/health")).json.webhooks).toMatchObject({ queued: 0, retrying: 0 });
    await api("DELETE", `/webhooks/${id}`);
  }, 180_000);
});

describe("the engine killed mid-delivery", () => {
  it("a delivery the receiver got while the engine died is sent again by the next engine, same id and body; every delivery arrives", async () => {
    const r = await receiver();
    const id = await register(r, { events: ["burn"], token: usdcToken });
    const burns = [await burn(usdcToken, 21n), await burn(usdcToken, 22n)].map((h) => h.toLowerCase());
    await mine(CONFIRMATIONS);
    await synced();

    const env = sc.d.env({ ...WEBHOOK_ENV, CONFIRMATIONS: String(CONFIRMATIONS), ENGINE_METRICS_PORT: "0", WORKER_INTERVAL_SCALE: "1", LOG_LEVEL: "warn" });
    const first = runTs("engine/main.ts", env, { timeoutMs: 180_000 });
    // The first delivery's answer is held; the engine is killed while it waits for it.
    let held: Delivery | undefined;
    r.onDelivery = (d, res) => {
      if (held) return false;
      held = d;
      first.child.kill("SIGKILL");
      setTimeout(() => res.writeHead(200).end("ok"), 200);
      return true;
    };
    const killed = await first;
    expect(killed.signal).toBe("SIGKILL");
    expect(held).toBeDefined();
    r.onDelivery = undefined;
    const [row] = (await outbox(id)).filter((d) => d.id === held!.id);
    expect(row).toMatchObject({ status: "queued", attempts: 1 });

    const second = runTs("engine/main.ts", env, { timeoutMs: 180_000 });
    try {
      const until = Date.now() + 90_000;
      while (!(await delivered(id)) || (await outbox(id)).length < 2) {
        if (Date.now() > until) throw new Error(`not delivered: ${JSON.stringify(await outbox(id))}\n${second.child.exitCode}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      second.child.kill("SIGTERM");
      await second;
    }
    // At least once: the held delivery again (same id, same body), every delivery arrived; a
    // receiver deduping on the id sees each fact once.
    const again = r.accepted.filter((d) => d.id === held!.id);
    expect(again.length).toBe(2);
    expect(again[1]!.body).toBe(again[0]!.body);
    const rows = await outbox(id);
    expect(rows.map((d) => d.status)).toEqual(["delivered", "delivered"]);
    expect([...new Set(r.ids())].sort()).toEqual(rows.map((d) => d.id).sort());
    for (const d of rows) {
      const copies = r.accepted.filter((x) => x.id === d.id);
      expect(copies.length).toBeLessThanOrEqual(2);
      expect(new Set(copies.map((x) => x.body)).size).toBe(1);
    }
    expect([...new Set(r.accepted.map(factTx))].sort()).toEqual([...burns].sort());
  }, 240_000);
});
