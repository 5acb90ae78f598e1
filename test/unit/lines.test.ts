import { PassThrough } from "node:stream";
import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { forEachLine } from "../../common/async.js";

describe("forEachLine", () => {
  it("hands over whole lines when a process writes one line in several pieces", async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    forEachLine(stream, (line) => lines.push(line));
    // anvil's refusal of a state file, in the pieces it writes it in.
    for (const piece of ["error:", " invalid value '", "/s.json", "' for '", "--load-state <PATH>", "': bad\n\nFor more, try '", "--help", "'.\n", "last"]) {
      stream.write(piece);
      await tick();
    }
    stream.end();
    await new Promise((resolve) => stream.once("end", resolve));
    await tick();
    expect(lines).toEqual(["error: invalid value '/s.json' for '--load-state <PATH>': bad", "For more, try '--help'.", "last"]);
  });
});
