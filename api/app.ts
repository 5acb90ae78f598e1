/**
 * The HTTP interface, served by ponder's server: the REST shim under /api/v1 and GraphQL
 * at /graphql. Every error is `{ "error": "..." }` with a 4xx/5xx status, never a stack.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { yoga } from "./graphql/index.js";
import { health } from "./rest/health.js";

const v1 = new Hono();
v1.route("/", health);

const app = new Hono();
app.route("/api/v1", v1);
app.on(["GET", "POST", "OPTIONS"], "/graphql", (c) => yoga.fetch(c.req.raw));
// Mounted inside ponder's server, a sub-app's notFound is not consulted: catch-all instead.
app.all("/api/v1/*", (c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
app.onError((error, c) => {
  if (error instanceof HTTPException) return c.json({ error: error.message }, error.status);
  console.error(error);
  return c.json({ error: "internal error" }, 500);
});

export default app;
