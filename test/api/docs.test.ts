/**
 * The API reference: the served OpenAPI document passes an independent validator
 * (@apidevtools/swagger-parser), and Swagger UI at /api/v1/docs, in headless Chromium with
 * every request beyond this machine refused, loads its assets from the service and renders
 * every operation of the document.
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_ROUTES } from "../../api/create-app.js";
import { openApiDocument } from "../../api/openapi/document.js";
import { type TestBrowser, launchBrowser } from "../helpers/browser.js";
import { type Harness, startHarness } from "./harness.js";

type Doc = { paths: Record<string, Record<string, unknown>> };
const operations = (doc: Doc) =>
  Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();

describe("OpenAPI document", () => {
  it("is valid OpenAPI 3.0 for an independent validator, every $ref resolved", async () => {
    const doc = openApiDocument(REST_ROUTES);
    const validated = (await SwaggerParser.validate(structuredClone(doc) as never)) as unknown as Doc;
    expect(operations(validated)).toEqual(operations(doc));
    expect(operations(doc)).toContain("POST /auth/verify");
    expect(operations(doc).length).toBe(REST_ROUTES.length + 3 + 6);
  });

  it("lives under its one server, /api/v1: no operation or path overrides it (a generated client ignores such overrides)", () => {
    const doc = openApiDocument(REST_ROUTES) as Doc & { servers: unknown };
    expect(doc.servers).toEqual([{ url: "/api/v1" }]);
    const overrides = Object.entries(doc.paths).flatMap(([path, item]) => [
      ...("servers" in item ? [path] : []),
      ...Object.entries(item).flatMap(([method, op]) => (op && typeof op === "object" && "servers" in op ? [`${method.toUpperCase()} ${path}`] : [])),
    ]);
    expect(overrides).toEqual([]);
    // The page and SQL over HTTP are served outside /api/v1: not in this document (docs/api.md has them).
    expect(Object.keys(doc.paths).filter((path) => path.startsWith("/p/") || path.startsWith("/sql"))).toEqual([]);
  });

  it("types every whole number a query string or a path carries as an integer, with its range (what a generated client sends)", () => {
    type Param = { name: string; in: string; schema: { type?: string; pattern?: string; minimum?: number; maximum?: number; default?: unknown } };
    const doc = openApiDocument(REST_ROUTES) as { paths: Record<string, Record<string, { parameters?: Param[] }>> };
    const params = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) => (op.parameters ?? []).map((p) => ({ at: `${method.toUpperCase()} ${path} ${p.in}:${p.name}`, ...p }))),
    );
    // A string schema whose pattern is digits only is a number written as text: none is left, but
    // identifiers (a delivery id, an opaque cursor), which may pass 2^53 and are never counted with.
    const digitStrings = params
      .filter((p) => !["id", "cursor"].includes(p.name) && p.schema.type === "string" && /^\^\\d\{[\d,]+\}\$$/.test(p.schema.pattern ?? ""))
      .map((p) => p.at);
    expect(digitStrings).toEqual([]);
    const byName = (at: string) => params.find((p) => p.at === at)!.schema;
    expect(byName("GET /tokens query:limit")).toEqual(expect.objectContaining({ type: "integer", minimum: 1, maximum: 200, default: 50 }));
    expect(byName("GET /tokens/{token}/candles query:limit")).toEqual(expect.objectContaining({ type: "integer", minimum: 1, maximum: 1000 }));
    expect(byName("GET /burns/{txHash}/{logIndex} path:logIndex")).toEqual(expect.objectContaining({ type: "integer", minimum: 0 }));
    expect(byName("GET /export/burns.csv query:fromBlock")).toEqual(expect.objectContaining({ type: "integer", minimum: 0 }));
    expect(byName("GET /webhooks/dead-letters query:limit")).toEqual(expect.objectContaining({ type: "integer", maximum: 200 }));
  });

  it("refuses a broken document (the validator is not a rubber stamp)", async () => {
    const broken = structuredClone(openApiDocument(REST_ROUTES)) as Doc;
    (broken.paths["/health"]!.get as { responses: unknown }).responses = {
      200: { content: { "application/json": { schema: { $ref: "#/components/schemas/Missing" } } } },
    };
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow();
  });
});

describe("API reference page, offline", () => {
  let h: Harness;
  let browser: TestBrowser;

  beforeAll(async () => {
    h = await startHarness({}, { indexer: false }); // the document and the page need no indexed data
    browser = await launchBrowser({ localOnly: true });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it("serves the page and its assets from the service itself", async () => {
    const res = await fetch(`${h.url}/api/v1/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<title>Launchpad API reference</title>");
    expect(html).not.toMatch(/(src|href)=["']https?:/);
    const script = await fetch(`${h.url}/api/v1/docs/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
    const css = await fetch(`${h.url}/api/v1/docs/swagger-ui.css`);
    expect(css.headers.get("content-type")).toMatch(/text\/css/);
    expect(await css.text()).toContain(".swagger-ui");
  });

  it("renders every operation of the served document", async () => {
    const served = (await (await fetch(`${h.url}/api/v1/openapi.json`)).json()) as Doc;
    const expected = operations(served);
    expect(expected.length).toBeGreaterThan(15);

    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const response = await page.goto(`${h.url}/api/v1/docs`, { waitUntil: "load" });
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe("Launchpad API reference");

    const blocks = page.locator(".opblock");
    await expect.poll(() => blocks.count(), { timeout: 60_000 }).toBe(expected.length);
    const rendered = await page.$$eval(".opblock", (els) =>
      els.map(
        (el) => `${el.querySelector(".opblock-summary-method")?.textContent?.trim()} ${el.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`,
      ),
    );
    expect(rendered.sort()).toEqual(expected);
    // The document's title and the two bearer schemes show.
    expect(await page.locator(".info .title").innerText()).toContain("Launchpad HTTP API");
    await page.locator(".btn.authorize").click();
    const dialog = page.locator(".dialog-ux");
    await dialog.waitFor({ state: "visible", timeout: 10_000 });
    const schemes = await dialog.innerText();
    expect(schemes).toContain("operatorKey");
    expect(schemes).toContain("session");

    expect(browser.blocked, "requests beyond this machine").toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
