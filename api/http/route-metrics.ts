/**
 * One matched route per request, so that request metrics count each request once, under the
 * route that answered it.
 *
 * Ponder's server labels its request metrics by every route of the app that matches a
 * request (`c.req.matchedRoutes`, less the global `/*`): a route registered with its rate
 * limit as a separate handler matches twice, and the JSON 404 catch-all (`/api/v1/*`)
 * matches every path under it. `answeredOnce` puts the app behind a router with exactly one
 * route per path the app answers (its wildcard middleware and catch-alls left out), each
 * passing the request to the app, plus the global `/*` for everything else (its 404s), which
 * ponder does not label.
 */
import { Hono } from "hono";

export function answeredOnce(app: Hono): Hono {
  const paths = [...new Set(app.routes.map((r) => r.path))].filter((path) => !path.includes("*"));
  const front = new Hono();
  const pass = (c: { req: { raw: Request }; env: unknown }) => app.fetch(c.req.raw, c.env);
  for (const path of paths) front.all(path, pass);
  front.all("*", pass);
  return front;
}
