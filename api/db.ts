/** The API's read access to indexed facts: ponder's read-only drizzle client. */
export { db } from "ponder:api";
