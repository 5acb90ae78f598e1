/**
 * Whether the disk that holds the service's data is full. `npm start` keeps the embedded
 * PostgreSQL and the devnet's state under DATA_DIR; when that filesystem fills up, PostgreSQL
 * fails its writes (and PANICs when it cannot add a WAL segment), so health and the
 * supervisor name the disk rather than only the database it takes down (docs/operations.md,
 * "Full disk"). One statfs call; nothing when the directory does not exist.
 */
import { existsSync, statfsSync } from "node:fs";

/** Less free space than this is a full disk: PostgreSQL needs a whole WAL segment (16 MB) to go on. */
export const DISK_FULL_BYTES = 64 * 1024 * 1024;

export type DiskSpace = { dir: string; freeBytes: number; totalBytes: number };

/** Free and total bytes of the filesystem holding `dir` (for an unprivileged writer), or undefined. */
export function diskSpace(dir: string): DiskSpace | undefined {
  try {
    if (!existsSync(dir)) return undefined;
    const s = statfsSync(dir);
    return { dir, freeBytes: Number(s.bavail) * Number(s.bsize), totalBytes: Number(s.blocks) * Number(s.bsize) };
  } catch {
    return undefined;
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** "disk full: … free of … on the filesystem of DIR" when `dir`'s filesystem is full, else undefined. */
export function diskFull(dir: string): string | undefined {
  const s = diskSpace(dir);
  if (!s || s.totalBytes === 0 || s.freeBytes >= Math.min(DISK_FULL_BYTES, s.totalBytes / 10)) return undefined;
  return `disk full: ${mb(s.freeBytes)} free of ${mb(s.totalBytes)} on the filesystem of ${s.dir}`;
}
