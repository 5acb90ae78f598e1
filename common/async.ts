import { createInterface } from "node:readline";

/** Resolves true when `promise` settles within `ms`, false otherwise; never leaves a timer behind. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls `onLine` with each whole, non-blank line a child process's stream writes. A process
 * may write one line in several pieces and a read can end between them, so splitting raw
 * chunks at newlines would cut lines apart.
 */
export function forEachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
    if (line.trim()) onLine(line);
  });
}
