/**
 * Replay conformance: every scenario recorded on Clanker's own v4 contracts
 * (../shared/reference/clanker-v4-traces) is replayed on the devnet's Clanker contracts
 * (devnet/clanker-replay.ts: a fresh anvil per trace, the recorded base fee, timestamp, gas price
 * and gas limit of every step), and every recorded output of every step must match exactly, to the
 * base unit: the block it lands in, the status, the revert (error and selector at every level, or
 * empty), every log in order (emitter role, event, signature, indexed arguments, arguments; decoded
 * with the project's ABIs), the balance changes, the swaps (LP fee, protocol fee, where it is taken),
 * the returns of calls, and the state read after the step (pool, hook, MEV module, fee locker,
 * rewards).
 *
 * What the devnet does not reproduce is listed in KNOWN_DIFFERENCES, per step and per field, with
 * the reason; the test asserts that each listed field still differs, so an entry must be removed
 * once the devnet matches it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Expect,
  type Observed,
  type RecordedLog,
  ReplaySession,
  type Trace,
  type Value,
  loadTraces,
  preparedReplay,
} from "../../devnet/clanker-replay.js";

/**
 * Fields of steps the devnet does not reproduce, with the reason. A field is `status`, `revert`,
 * `logs`, `balanceChanges`, `swaps`, `returns`, `blockOffset`, or `state.<section>` /
 * `state.<section>.<view>` (`hook` and `mevModule` by view). Every recorded step replays exactly
 * today: the list is empty, and an entry may only be added with the reason the devnet cannot do it.
 */
const KNOWN: { scenario: string; steps: number[]; fields: string[]; reason: string }[] = [];
const KNOWN_DIFFERENCES: Record<string, { fields: string[]; reason: string }> = {};
for (const { scenario, steps, fields, reason } of KNOWN) {
  for (const step of steps) {
    const entry = (KNOWN_DIFFERENCES[`${scenario}#${step}`] ??= { fields: [], reason: "" });
    entry.fields.push(...fields);
    entry.reason = entry.reason ? `${entry.reason}; ${reason}` : reason;
  }
}

const traces = loadTraces();
let prepared: Promise<Awaited<ReturnType<typeof preparedReplay>>> | undefined;
const prepare = () => {
  prepared ??= preparedReplay();
  return prepared;
};

const ERC20_EVENTS = new Set(["$usdc", "$weth", "$token"]);

/** A log in a form both sides share: values by position; names where both sides name them (not ERC-20's). */
function canonicalLogs(logs: RecordedLog[], peers: RecordedLog[]): unknown[] {
  return logs.map((log, i) => {
    const peer = peers[i];
    let names = Object.keys(log.args);
    // An unnamed parameter of the real event has no recorded value: compare the named ones only.
    if (peer && Object.keys(peer.args).length < names.length) names = names.filter((n) => !/^_\d+$/.test(n));
    const erc20 = ERC20_EVENTS.has(log.emitter) && (log.event === "Transfer" || log.event === "Approval");
    const peerNames = peer ? Object.keys(peer.args) : [];
    return {
      emitter: log.emitter,
      event: log.event,
      signature: log.signature,
      indexed: (log.indexed ?? []).map((n) => names.indexOf(n)),
      args: names.map((n, k) => {
        const named = !erc20 && !/^_\d+$/.test(n) && !/^_\d+$/.test(peerNames[k] ?? "");
        return named ? [n, log.args[n]] : [log.args[n]];
      }),
    };
  });
}

/** Each compared field of a step: [field, recorded, devnet]. */
function fields(step: { blockOffset: number; expect: Expect }, observed: Observed): [string, unknown, unknown][] {
  const e = step.expect;
  const out: [string, unknown, unknown][] = [
    ["blockOffset", step.blockOffset, observed.blockOffset],
    ["status", e.status, observed.status],
    ["revert", e.revert, observed.revert],
  ];
  if (e.logs) {
    const devnet = (observed.logs ?? []).map(({ decoded: _, ...log }) => log);
    out.push(["logs", canonicalLogs(e.logs, devnet), canonicalLogs(devnet, e.logs)]);
  }
  if (e.balanceChanges) out.push(["balanceChanges", e.balanceChanges, observed.balanceChanges]);
  if (e.swaps) out.push(["swaps", e.swaps, observed.swaps ?? []]);
  if ("returns" in e) out.push(["returns", e.returns, observed.returns]);
  for (const [section, value] of Object.entries(e.state ?? {})) {
    const devnet = observed.state?.[section] as Record<string, Value> | undefined;
    if (section === "hook" || section === "mevModule") {
      for (const [view, v] of Object.entries(value as Record<string, Value>)) out.push([`state.${section}.${view}`, v, devnet?.[view]]);
    } else out.push([`state.${section}`, value, devnet]);
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe("the replayed traces", () => {
  it("are all there", () => {
    expect(traces.map((t) => t.scenario)).toEqual([
      "a-static-1pct-auction-and-claims",
      "b-static-5pct-sell-1pct-buy",
      "c-dynamic-basic",
      "d-two-recipients-fee-preferences",
      "e-probes",
    ]);
  });

  it("name only steps that exist in KNOWN_DIFFERENCES", () => {
    const steps = new Set(traces.flatMap((t) => t.steps.map((s) => `${t.scenario}#${s.index}`)));
    for (const key of Object.keys(KNOWN_DIFFERENCES)) expect(steps, key).toContain(key);
  });
});

for (const trace of traces as Trace[]) {
  describe(`replay of ${trace.scenario}`, () => {
    let session: ReplaySession | undefined;
    const observed: (Observed | Error)[] = [];

    beforeAll(async () => {
      session = await ReplaySession.start(trace, await prepare());
      for (const step of trace.steps) {
        if (observed.some((o) => o instanceof Error)) break;
        observed.push(await session.runStep(step).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))));
      }
    });

    afterAll(async () => {
      await session?.stop();
    });

    for (const step of trace.steps) {
      it(`step ${step.index}: ${step.label}`, () => {
        const o = observed[step.index];
        if (o instanceof Error || o === undefined) throw o ?? new Error("not replayed: an earlier step failed");
        const key = `${trace.scenario}#${step.index}`;
        const known = KNOWN_DIFFERENCES[key];
        const compared = fields(step, o);
        for (const field of known?.fields ?? []) {
          const entry = compared.find(([f]) => f === field);
          expect(entry, `${key}: KNOWN_DIFFERENCES names ${field}, which this step does not record`).toBeDefined();
          expect(same(entry![1], entry![2]), `${key}: ${field} now matches the recording: remove it from KNOWN_DIFFERENCES`).toBe(false);
        }
        for (const [field, recorded, devnet] of compared) {
          if (known?.fields.includes(field)) continue;
          expect(devnet, `${key} ${field}`).toEqual(recorded);
        }
      });
    }
  });
}
