/** The part of pg-copy-streams (no bundled types) the exports use: `to`, a COPY … TO STDOUT as a Readable (api/read/export-copy.ts). */
declare module "pg-copy-streams" {
  import type { Readable } from "node:stream";
  import type { Submittable } from "pg";

  export interface CopyToStreamQuery extends Readable, Submittable {
    rowCount: number;
  }
  export function to(text: string, options?: import("node:stream").ReadableOptions): CopyToStreamQuery;
  const copyStreams: { to: typeof to };
  export default copyStreams;
}
