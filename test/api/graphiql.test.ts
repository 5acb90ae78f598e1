/**
 * GraphiQL at /graphql in headless Chromium, with every request beyond this machine refused:
 * the page's scripts, styles and editor workers come from the service itself (no CDN), the
 * editor appears, a query typed into it runs, and the result shows the API's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestBrowser, launchBrowser } from "../helpers/browser.js";
import { type Harness, startHarness } from "./harness.js";

/** Answered from the schema alone: the page needs no indexed data, so no ponder runs. */
const QUERY = '{ __type(name: "Token") { name kind } }';

describe("GraphiQL in a browser, offline", () => {
  let h: Harness;
  let browser: TestBrowser;

  beforeAll(async () => {
    h = await startHarness({}, { indexer: false });
    browser = await launchBrowser({ localOnly: true });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it("serves the page with its assets inline", async () => {
    const res = await fetch(`${h.url}/graphql`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain("<title>Launchpad GraphQL</title>");
    expect(html).toContain("YogaGraphiQL.renderYogaGraphiQL");
    expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']https?:/);
  });

  it("shows the editor, runs a query and shows the API's answer", async () => {
    const expected = await h.gql(QUERY, undefined, "http");
    expect(expected.status).toBe(200);
    const type = (expected.json as { data: { __type: { name: string; kind: string } } }).data.__type;
    expect(type).toEqual({ name: "Token", kind: "OBJECT" });

    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const response = await page.goto(`${h.url}/graphql`, { waitUntil: "load" });
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe("Launchpad GraphQL");

    // The editor: GraphiQL's query editor (Monaco) is up and editable.
    const editor = page.locator(".graphiql-query-editor");
    await editor.waitFor({ state: "visible", timeout: 60_000 });
    await page.locator(".graphiql-query-editor .monaco-editor").waitFor({ state: "visible", timeout: 60_000 });
    expect(await page.locator("body").innerText()).not.toContain("Loading");

    await editor.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(QUERY);
    await page.locator(".graphiql-execute-button").click();

    // The result pane shows the answer the same query gets over HTTP.
    const result = page.locator(".graphiql-response");
    await expect.poll(async () => await result.innerText(), { timeout: 30_000 }).toContain('"Token"');
    const shown = await result.innerText();
    expect(shown).toContain('"OBJECT"');
    expect(shown).not.toContain('"errors"');

    expect(browser.blocked, "requests beyond this machine").toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
