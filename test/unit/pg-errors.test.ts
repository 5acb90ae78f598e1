/**
 * One set of PostgreSQL error codes (`common/pg-errors.ts`), which the HTTP error mapping and
 * the engine's error classes read: these tests pin what each classification answers.
 */
import { describe, expect, it } from "vitest";
import { PG_NOT_MIGRATED, PG_SHUTTING_DOWN, PG_TRANSIENT, SOCKET_FAILURES, isDatabaseUnavailableCode } from "../../common/pg-errors.js";
import { HttpRequestError } from "viem";
import { classifyError, describeError, isDatabaseUnavailable } from "../../core/errors.js";
import { TRANSIENT_DB_CODES, transientDbError } from "../../api/http/errors.js";

describe("PostgreSQL error codes", () => {
  it("the API's transient codes are the shared set", () => {
    expect(TRANSIENT_DB_CODES).toEqual(PG_TRANSIENT);
    for (const [code, reason] of Object.entries(PG_TRANSIENT)) expect(transientDbError(new Error("Failed query", { cause: { code } }))).toBe(reason);
    expect(transientDbError({ code: "23505" })).toBeUndefined();
  });

  it("the engine counts the database unavailable for exactly the shared codes", () => {
    const codes = [
      ...PG_SHUTTING_DOWN,
      ...SOCKET_FAILURES,
      "08000",
      "08001",
      "08003",
      "08006",
      "08P01",
      ...PG_NOT_MIGRATED,
      ...Object.keys(PG_TRANSIENT),
      "23505",
      "ENOTFOUND",
      "XX000",
      "53100",
      "53200",
    ];
    for (const code of codes) expect(isDatabaseUnavailable({ code }), code).toBe(isDatabaseUnavailableCode(code));
    expect(isDatabaseUnavailableCode("57P01")).toBe(true);
    expect(isDatabaseUnavailableCode("08006")).toBe(true);
    expect(isDatabaseUnavailableCode("ECONNREFUSED")).toBe(true);
    expect(isDatabaseUnavailableCode("40001")).toBe(false);
    expect(isDatabaseUnavailableCode("42P01")).toBe(false);
    // A full disk is waited out like an outage: the server cannot write until space is freed.
    expect(isDatabaseUnavailableCode("53100")).toBe(true);
    expect(classifyError(Object.assign(new Error('could not extend file "base/16384/16386": No space left on device'), { code: "53100" })).code).toBe(
      "database-unavailable",
    );
  });

  it("a refused connection is the database's when the driver threw it, the RPC's when viem did", () => {
    const refused = (port: number) => Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: "ECONNREFUSED", syscall: "connect" });
    // node-postgres rejects with the socket's error as it is.
    expect(classifyError(refused(5432)).code).toBe("database-unavailable");
    expect(describeError(refused(5432))).toBe("database-unavailable: connect ECONNREFUSED 127.0.0.1:5432");
    expect(classifyError(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" })).code).toBe("database-unavailable");
    // viem wraps fetch's failure, whose cause is the same socket error.
    const rpc = new HttpRequestError({ url: "http://127.0.0.1:8545", cause: Object.assign(new TypeError("fetch failed"), { cause: refused(8545) }) });
    expect(classifyError(rpc).code).toBe("rpc-unavailable");
    expect(classifyError(rpc).retryable).toBe(true);
  });
});
