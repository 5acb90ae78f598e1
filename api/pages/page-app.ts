/**
 * What every HTML page shares: a no-script Content-Security-Policy and short public caching on
 * each answer, and an error page (never a stack trace) naming the page that is unavailable.
 */
import { Hono } from "hono";
import { toHttpError } from "../http/errors.js";
import { PAGE_CSP } from "./prospectus.js";

type Headers = { header: (name: string, value: string) => void };

/** Sets the pages' headers on an answer. */
export function pageHeaders(c: Headers): void {
  c.header("Content-Security-Policy", PAGE_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "public, max-age=15");
}

/** A sub-app for pages: errors become a small HTML page ("The {what} is not available right now."). */
export function pageApp(what: string, logError?: (error: unknown, where: string) => void): Hono {
  const app = new Hono();
  app.onError((error, c) => {
    const http = toHttpError(error);
    if (http.unexpected) (logError ?? ((e, where) => console.error(where, e)))(error, `${c.req.method} ${c.req.path}`);
    pageHeaders(c);
    return c.html(
      `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Unavailable</title></head><body><h1>${http.status}</h1><p>The ${what} is not available right now.</p></body></html>`,
      http.status,
    );
  });
  return app;
}
