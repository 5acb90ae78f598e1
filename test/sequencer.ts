/**
 * The order files start in. With durations from an earlier run in vitest's cache, the longest
 * first (vitest's own order). Without them (a fresh clone, as CI runs), vitest guesses a file's
 * length from its size, which says nothing of a group file: `test/api/seeded.test.ts` is a few
 * lines that run the suites of `test/api/seeded/`. Here a group file weighs its folder too, so
 * that the longest files still start first and no worker waits for one that started last.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** A file's size, plus the sizes of the files of a folder named like it (`x.test.ts` → `x/`). */
function weight(file: string): number {
  const own = statSync(file).size;
  const group = file.replace(/\.test\.ts$/, "");
  let suites = 0;
  try {
    for (const name of readdirSync(group)) suites += statSync(join(group, name)).size;
  } catch {
    // No folder of suites: the file is its own weight.
  }
  return own + suites;
}

export default class GroupAwareSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cached = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${f.moduleId.slice(this.ctx.config.root.length + 1)}`) !== undefined;
    if (files.every(cached)) return super.sort(files);
    const weights = new Map(files.map((f) => [f, weight(f.moduleId)]));
    return [...files].sort((a, b) => weights.get(b)! - weights.get(a)!);
  }
}
