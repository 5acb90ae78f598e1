/**
 * The interactive API reference at /api/v1/docs: Swagger UI from the `swagger-ui-dist` npm
 * package, its script and stylesheet read from node_modules once at startup and served here
 * (no CDN, nothing fetched beyond this service), rendering /api/v1/openapi.json.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono, type MiddlewareHandler } from "hono";

/** Where the page finds the document (relative to /api/v1/docs: /api/v1/openapi.json). */
const DOCUMENT_URL = "openapi.json";

const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: new URL(${JSON.stringify(DOCUMENT_URL)}, location.href).href,
    dom_id: "#swagger-ui",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Launchpad API reference</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`;

let assets: { script: string; css: string } | undefined;
/** The asset files, read once from the installed package (throws at startup if it is missing). */
function readAssets(): { script: string; css: string } {
  const root = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  assets ??= { script: readFileSync(join(root, "swagger-ui-bundle.js"), "utf8"), css: readFileSync(join(root, "swagger-ui.css"), "utf8") };
  return assets;
}

/** Routes `/docs` and its assets, relative to the app they are mounted on (/api/v1). */
export function docsPage(limit: MiddlewareHandler): Hono {
  const { script, css } = readAssets();
  const app = new Hono();
  const cache = "public, max-age=3600";
  // The page is served at /api/v1/docs (no trailing slash): relative asset URLs start with docs/.
  app.get("/docs", limit, (c) => {
    c.header("Cache-Control", "no-cache");
    c.header("X-Content-Type-Options", "nosniff");
    return c.html(PAGE);
  });
  app.get("/docs/swagger-ui-bundle.js", limit, (c) => c.body(script, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": cache }));
  app.get("/docs/swagger-ui.css", limit, (c) => c.body(css, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": cache }));
  app.get("/docs/init.js", limit, (c) => c.body(INIT_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" }));
  return app;
}
