import { describe, expect, it } from "vitest";
import { ReorgGate } from "../../core/reorg-gate.js";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("ReorgGate (worker cycles shared, the finality watcher exclusive)", () => {
  it("lets readers run together, a writer alone, and serves a waiting writer before later readers", async () => {
    const gate = new ReorgGate();
    const events: string[] = [];
    let active = 0;
    let maxActive = 0;
    const job = (name: string, ms: number) => async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      events.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      events.push(`end ${name}`);
      active--;
    };
    const r1 = gate.shared(job("r1", 30));
    const r2 = gate.shared(job("r2", 30));
    await tick();
    const w = gate.exclusive(async () => {
      expect(active).toBe(0);
      await job("w", 10)();
    });
    await tick();
    const r3 = gate.shared(job("r3", 5));
    await Promise.all([r1, r2, w, r3]);
    expect(maxActive).toBe(2);
    expect(events.indexOf("start w")).toBeGreaterThan(events.indexOf("end r2"));
    expect(events.indexOf("start r3")).toBeGreaterThan(events.indexOf("end w"));
  });

  it("releases on a thrown error", async () => {
    const gate = new ReorgGate();
    await expect(gate.exclusive(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.shared(async () => 1)).toBe(1);
  });
});
