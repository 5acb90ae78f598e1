/**
 * Ends `npm test` with the ten slowest files and the run's total: where the suite's time goes,
 * visible on every run (docs/testing.md says each group's budget).
 *
 * A file's time is what it cost the run: importing it and its setup file, then every hook and
 * test in it (vitest's module diagnostic).
 */
import { writeFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

const SHOWN = 10;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class SlowestFiles implements Reporter {
  private started = Date.now();

  onTestRunStart() {
    this.started = Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const files = modules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.moduleId.replace(`${process.cwd()}/`, ""), ms: d.setupDuration + d.collectDuration + d.duration, state: m.state() };
      })
      .sort((a, b) => b.ms - a.ms);
    if (files.length === 0) return;
    const width = Math.max(...files.slice(0, SHOWN).map((f) => f.file.length));
    const lines = files.slice(0, SHOWN).map((f) => `  ${f.file.padEnd(width)}  ${seconds(f.ms).padStart(8)}${f.state === "failed" ? "  (failed)" : ""}`);
    const sum = files.reduce((s, f) => s + f.ms, 0);
    // For scripts/test.ts, which prints the slowest files of all its lanes together at its end.
    if (process.env.TEST_TIMINGS_FILE) writeFileSync(process.env.TEST_TIMINGS_FILE, JSON.stringify({ files, wallMs: Date.now() - this.started }));
    process.stdout.write(
      `\nThe ${Math.min(SHOWN, files.length)} slowest of ${files.length} files:\n${lines.join("\n")}\n` +
        `Total: ${seconds(Date.now() - this.started)} wall, ${seconds(sum)} in files.\n`,
    );
  }
}
