/**
 * Keeps the benchmark harness working: the smoke variant runs every part end to end (history
 * generation, indexing against the bare app, API load against ponder's graphql(), growth, API
 * replicas and subscriber fan-out, soak with engine kills). No timing is asserted; only that
 * every part ran and reported, with no 5xx, the ledger invariants holding and every burn
 * delivered to every subscriber.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../devnet/compile.js";

describe("bench:smoke", () => {
  it("runs every benchmark part and writes the results table", async () => {
    // Asynchronously: a blocked worker would miss vitest's own heartbeats for minutes.
    const child = spawn(process.execPath, ["--import", "tsx/esm", join(ROOT, "bench", "run.ts"), "--smoke"], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so that stopping it stops what it started (PostgreSQL, anvil) with it.
      detached: true,
    });
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {}
    };
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    // A run that never ends is stopped before the test's own timeout, so its failure shows where it stood.
    let overdue = false;
    const deadline = setTimeout(() => {
      overdue = true;
      signalGroup("SIGTERM");
      setTimeout(() => signalGroup("SIGKILL"), 10_000).unref();
    }, 840_000);
    const status = await new Promise<number | null>((resolve) => child.once("exit", resolve)).finally(() => clearTimeout(deadline));
    expect(overdue, `bench:smoke still running after 840 s; its last output:\n${output.slice(-6000)}`).toBe(false);
    expect(status, output.slice(-6000)).toBe(0);
    const table = readFileSync(join(ROOT, "bench", "results", "latest-smoke.md"), "utf8");
    for (const section of [
      "## Histories",
      "## Indexing throughput",
      "## API under load",
      "## Growth with history",
      "## Ledger growth",
      "## API replicas",
      "## Subscriber fan-out",
      "## Soak and faults",
      "## Targets",
    ]) {
      expect(table).toContain(section);
    }
    expect(table).toMatch(/ours \/ bare events per second, both given the same \d+ endpoints: \*\*\d/);
    expect(table).toMatch(/GraphQL burns: ours \/ ponder \| \d/);
    // Every target has a met / not-met line, and the ledger-growth row ran.
    const targets = table.split("\n## Targets")[1]!.split("\n## ")[0]!;
    for (const target of [
      "/stats: ≥ 1,000 req/s",
      "/tokens: ≥ 1,000 req/s",
      "/health: ≥ 1,000 req/s",
      "GraphQL burn page",
      "/stats with",
      "/tokens with",
      "fan-out: each of",
    ]) {
      const line = targets.split("\n").find((l) => l.includes(target));
      expect(line, target).toMatch(/\| (met|\*\*not met\*\*) \|$/);
    }
    // The soak's totals row: the row under the header that starts with "requests" (a table per fault follows it).
    const soakLines = table.split("\n## Soak and faults")[1]!.split("\n## ")[0]!.trim().split("\n");
    const header = soakLines.findIndex((l) => l.startsWith("| requests |"));
    const cells = (line: string) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim());
    const soak = Object.fromEntries(cells(soakLines[header]!).map((name, i) => [name, cells(soakLines[header + 2]!)[i]]));
    expect(Number(soak.requests)).toBeGreaterThan(0);
    expect(Number(soak["5xx"])).toBe(0);
    // The short soak takes its faults in turn (database outage, RPC freeze, engine kill, rollback) as time allows.
    const faults = ["engine kills", "chain rollbacks", "database outages", "RPC freezes"].reduce((n, name) => n + Number(soak[name]), 0);
    expect(faults).toBeGreaterThanOrEqual(1);
    expect(soak.invariants).toBe("hold");
    // Each fault has its recovery measured.
    // The recovery table's rows: up to the first line that is not a table row (the memory table follows).
    const afterHeader = soakLines.slice(soakLines.findIndex((l) => l.startsWith("| fault |")) + 2);
    const end = afterHeader.findIndex((l) => !l.startsWith("|"));
    const recovery = (end < 0 ? afterHeader : afterHeader.slice(0, end)).map(cells);
    expect(recovery).toHaveLength(faults);
    // A fault not recovered from says what the soak saw last (health's status, the index's lag).
    for (const [fault, lasted, recovered] of recovery)
      expect({ fault, lasted: Number(lasted) >= 0, recovered: Number(recovered) >= 0 ? true : recovered }).toEqual({ fault, lasted: true, recovered: true });
    // The engine's transactions by outcome, out-of-gas first tries and their retries counted.
    const outcomes = soakLines.find((l) => l.startsWith("The engine's transactions:"));
    expect(outcomes).toMatch(/^The engine's transactions: \d+ mined, \d+ reverted, \d+ of them out of gas .*: (\d+) of (\d+)/);
    // ponder rides out the rollbacks and outages without exiting (a rollback under an event's
    // receipt read once stopped it: indexer/receipts.ts); the line names each exit otherwise.
    const ponderLine = soakLines.find((l) => l.startsWith("ponder ran") || l.startsWith("**ponder stopped"));
    expect(ponderLine).toBe("ponder ran through the whole soak without exiting.");
    // Every subscriber of both replicas received every burn (the run fails otherwise), through one LISTEN per replica.
    const fanout = table
      .split("\n## Subscriber fan-out")[1]!
      .split("\n## ")[0]!
      .trim()
      .split("\n")
      .at(-1)!
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
    expect(fanout[0]).toMatch(/^(\d+) \/ \1$/);
    expect(fanout.at(-1)).toBe("2");
  }, 900_000);
});
