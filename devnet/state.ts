/**
 * Chain-state files of anvil: a completeness check that runs before anvil is spawned, one
 * clear message for a file that cannot be loaded, and atomic writes (temporary file, fsync,
 * rename, fsync of the folder), so a reader only ever sees a previous complete file or the
 * new complete one.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";

/** Why a state file cannot be loaded, or undefined when it is a complete JSON object. */
export type StateProblem = string | undefined;

const CHUNK = 16 * 1024 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * Checks that `file` holds one complete JSON object: it starts with `{`, every string and
 * bracket opened is closed, and nothing but whitespace follows the closing `}`. A file cut off
 * anywhere (anvil killed while dumping, a full disk) fails this check at its last byte, so it
 * is an exact test for truncation; a corrupt file that passes it still fails in anvil, whose
 * error is mapped to the same message (`stateProblemFromAnvil`). It reads in chunks and skips
 * through strings with indexOf: about 1 s for a 280 MB state.
 */
export function checkStateFile(file: string): StateProblem {
  if (!existsSync(file)) return "the file does not exist";
  const size = statSync(file).size;
  if (size === 0) return "the file is empty";
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let offset = 0; // file position of buf[0]
    let started = false;
    let depth = 0;
    let inString = false;
    let escaped = false;
    let closedAt = -1; // file position of the top-level closing brace
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, offset);
      if (n === 0) break;
      let i = 0;
      // Position of the next backslash in this chunk (n when none): found once, not per string.
      let nextBackslash = -1;
      while (i < n) {
        if (inString) {
          if (escaped) {
            escaped = false;
            i++;
            continue;
          }
          const q = buf.indexOf(QUOTE, i);
          const end = q < 0 || q >= n ? n : q;
          if (nextBackslash < i) {
            const bs = buf.indexOf(BACKSLASH, i);
            nextBackslash = bs < 0 || bs >= n ? n : bs;
          }
          if (nextBackslash < end) {
            escaped = true;
            i = nextBackslash + 1;
            continue;
          }
          if (end === n) {
            i = n;
            continue;
          }
          inString = false;
          i = end + 1;
          continue;
        }
        const b = buf[i]!;
        if (closedAt >= 0) {
          if (!isSpace(b)) return `unexpected data after the end of the JSON at byte ${offset + i}`;
        } else if (!started) {
          if (b === 0x7b) {
            started = true;
            depth = 1;
          } else if (!isSpace(b)) {
            return `not a JSON state: byte ${offset + i} is not '{'`;
          }
        } else if (b === QUOTE) {
          inString = true;
        } else if (b === 0x7b || b === 0x5b) {
          depth++;
        } else if (b === 0x7d || b === 0x5d) {
          depth--;
          if (depth === 0) closedAt = offset + i;
        }
        i++;
      }
      offset += n;
    }
    if (!started) return "the file holds only whitespace";
    if (closedAt < 0) return `truncated JSON at byte ${offset}`;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The one line for a state file anvil cannot load: which file, why, what to do. */
export function unloadableStateMessage(file: string, problem: string): string {
  const shown = relative(process.cwd(), file) || file;
  const name = shown.startsWith("..") ? file : shown;
  return `devnet state ${name} cannot be loaded (${problem}): move it away to start a fresh devnet, or restore a backup`;
}

export class UnloadableStateError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(unloadableStateMessage(file, problem));
    this.name = "UnloadableStateError";
  }
}

/**
 * anvil's own refusal of a state file, e.g.
 * `error: invalid value 'x.json' for '--load-state <PATH>': failed to parse json file: "x.json": EOF while parsing a string at line 1 column 138054905`,
 * as a problem for `unloadableStateMessage` (undefined when the output is about something else).
 */
export function stateProblemFromAnvil(output: string): StateProblem {
  const line = output.split("\n").find((l) => /for '--(load-state|state) <PATH>'/.test(l));
  if (!line) return undefined;
  const eof = /EOF while parsing .* at line (\d+) column (\d+)/.exec(line);
  if (eof && eof[1] === "1") return `truncated JSON at byte ${eof[2]}`;
  const detail = line.replace(/^.*?for '--[a-z-]+ <PATH>': /, "").replace(/failed to parse json file: "[^"]*": /, "");
  return `anvil: ${detail.trim()}`;
}

/** fsync of a folder, so a rename inside it survives a power cut (best effort where unsupported). */
function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some file systems refuse fsync on a folder; the rename is still atomic
  }
}

/** Flushes a finished temporary file to disk and renames it over `file` (atomic on one file system). */
export function promoteSync(tmp: string, file: string): void {
  const fd = openSync(tmp, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  fsyncDir(dirname(file));
}

/**
 * Writes `data` to `file` atomically: into `file.<tag>.tmp`, fsync, rename. `gunzip` inflates
 * gzip bytes on the way (streamed, so the event loop stays free), then `transform` rewrites
 * them. On failure the temporary file is removed and `file` is untouched.
 */
export async function writeFileAtomic(
  file: string,
  data: Buffer,
  options: { gunzip?: boolean; tag?: string; transform?: (chunks: AsyncIterable<Buffer>) => AsyncIterable<Buffer> } = {},
): Promise<{ bytes: number; sha256: string }> {
  const tmp = `${file}.${options.tag ?? "write"}.tmp`;
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    const source = Readable.from([data]);
    const out = createWriteStream(tmp);
    const count = async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        bytes += chunk.length;
        yield chunk;
      }
    };
    const transform = options.transform ?? ((chunks: AsyncIterable<Buffer>) => chunks);
    if (options.gunzip) await pipeline(source, createGunzip(), transform, count, out);
    else await pipeline(source, transform, count, out);
    const handle = await open(tmp, "r+");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
    fsyncDir(dirname(file));
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  return { bytes, sha256: hash.digest("hex") };
}

/** sha256 of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  const handle = await open(file, "r");
  try {
    for await (const chunk of handle.createReadStream()) hash.update(chunk as Buffer);
  } finally {
    await handle.close().catch(() => {});
  }
  return hash.digest("hex");
}

export function removeQuietly(file: string): void {
  rmSync(file, { force: true });
}

export const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0)} MB`;

/**
 * Why a complete state file is not one moment of the chain, or undefined when it is: every
 * account that sent transactions has a nonce equal to the number of them the file keeps. anvil
 * serialises accounts and blocks one after the other, so a dump written while a block was
 * mined can keep a block's state without the block or the other way round; loaded, the chain
 * would have a nonce gap or effects no block explains. Reads the whole file (a crash's
 * leftover exit dump only, not every save).
 */
export function inconsistentState(file: string): string | undefined {
  let state: { accounts?: Record<string, { nonce?: number | string }>; transactions?: { info?: { from?: string } }[] };
  try {
    state = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  const sent = new Map<string, number>();
  for (const tx of state.transactions ?? []) {
    const from = tx.info?.from?.toLowerCase();
    if (from) sent.set(from, (sent.get(from) ?? 0) + 1);
  }
  const nonces = new Map(Object.entries(state.accounts ?? {}).map(([address, a]) => [address.toLowerCase(), Number(a.nonce ?? 0)]));
  for (const [from, count] of sent) {
    const nonce = nonces.get(from) ?? 0;
    if (nonce !== count) return `account ${from} has nonce ${nonce} but ${count} transactions in the file`;
  }
  return undefined;
}
