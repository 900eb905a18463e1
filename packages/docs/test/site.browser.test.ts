// The built site (dist/) opened in real headless Chromium over 127.0.0.1: the pages must render
// what the specs say, make no request off the machine and log no error.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { diffDocuments, specFromText } from "@marketapi/diff";
import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel, operationEntries } from "@marketapi/spec/model";
import { validateEndpoint } from "@marketapi/validators";
import type { Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renderChangelogPage } from "../src/changelog-page.js";
import { isObject, objectAt, stringsAt } from "../src/json.js";
import { REDOC_CODE_SAMPLES } from "../src/samples/code-samples.js";
import {
  CHROMIUM_PATH,
  type GuardedBrowser,
  hasChromium,
  launchGuardedChromium,
  openPage,
  screenshot,
  waitForRedocHydration,
} from "./support/chromium.js";
import {
  artifactPath,
  assertDistBuilt,
  DIST_DIR,
  expectedOperations,
  PACKAGE_DIR,
  readDistJson,
} from "./support/dist.js";
import {
  clippedOrCoveredCells,
  overflowingBoxes,
  pageWiderThanScreen,
  readingProblems,
  truncatedTexts,
  WIDTHS,
  wordsBrokenMidway,
  wordsSplitAcrossLines,
} from "./support/layout.js";
import {
  chooseSampleLanguage,
  flatText,
  openLanguageMenu,
  openOperation,
  sampleCode,
  sampleLanguage,
  shownSamplesPanel,
  sidebarEntry,
  sidebarOperations,
} from "./support/redoc.js";
import { type StaticServer, serveDirectory } from "./support/static-server.js";
import { takeUnfinishedWaits, until, waitingFor } from "./support/waits.js";

/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildSpecModel(loadOpenApi()).operations.length;

const noChromium = `no Chromium at ${CHROMIUM_PATH}. Install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH.`;
// On a developer's machine the browser tests skip, saying so; in CI a missing browser is a failure.
const inCi = process.env.CI !== undefined && !["", "0", "false"].includes(process.env.CI.toLowerCase());
if (!hasChromium && !inCi) console.warn(`[@marketapi/docs] SKIPPING the browser tests: ${noChromium}`);

if (!hasChromium && inCi) {
  it("documentation site in headless Chromium: CI needs Chromium", () => {
    expect.fail(`CI is set and the browser tests cannot run: ${noChromium}`);
  });
}

// Chromium shares the 2 cores with turbo's other test tasks: a page that renders in 1 s alone can
// take twenty times that there.
const BROWSER_TEST_TIMEOUT = 600_000;
/** Every operation × 3 languages, each a route change and a re-render. */
const SAMPLES_TEST_TIMEOUT = 900_000;

describe.skipIf(!hasChromium)("documentation site in headless Chromium", () => {
  let server: StaticServer;
  let browser: GuardedBrowser;

  beforeAll(async () => {
    assertDistBuilt();
    server = await serveDirectory(DIST_DIR);
    browser = await launchGuardedChromium();
  }, BROWSER_TEST_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  beforeEach(() => browser?.reset());

  // A test that stops for its limit says which wait of the page never ended (support/waits.ts).
  afterEach(() => {
    const waits = takeUnfinishedWaits();
    const last = waits.endedLast.join("; ") || "none";
    expect(waits.pending, `waits of the page never ended (the last ones that did: ${last})`).toEqual([]);
  });

  /** Clicks the page's link to `file`, as a reader does, and waits to be there. */
  async function follow(page: Page, file: string): Promise<void> {
    const link = page.locator(`main a[href='${file}']`).first();
    await waitingFor(`a click on the link to ${file} (${link})`, () => link.click());
    const want = new URL(file, server.url).pathname;
    await until(`the browser to reach ${file}`, () => new URL(page.url()).pathname).toBe(want);
  }

  function expectNoViolations(): void {
    expect(browser.violations.remoteRequests, "requests that left 127.0.0.1").toEqual([]);
    expect(browser.violations.consoleErrors, "console errors").toEqual([]);
    expect(browser.violations.pageErrors, "uncaught page errors").toEqual([]);
  }

  it(
    "the guard itself sees and blocks a request to a non-local host",
    async () => {
      const page = await browser.newPage();
      await page.setContent('<img src="https://example.com/pixel.png" alt="">');
      await until("the guard to record the request", () => browser.violations.remoteRequests).toContain(
        "https://example.com/pixel.png",
      );
      await page.close();
      browser.reset();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "index page links both documentation pages and the spec files, and every link works",
    async () => {
      const page = await browser.newPage();
      await openPage(page, `${server.url}index.html`);
      await screenshot(page, artifactPath("index.png"), { fullPage: true });

      const hrefs = await page
        .locator("main a[href]")
        .evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
      for (const target of [
        "api.html",
        "endpoint.html",
        "changes.html",
        "openapi.json",
        "openapi.yaml",
        "endpoint.schema.json",
      ]) {
        expect(hrefs, `index.html links ${target}`).toContain(target);
      }
      // Every link of the site answers 200 when the browser fetches it (the spec's own links,
      // externalDocs and contact, leave the machine: they are listed, not followed).
      for (const href of new Set(hrefs.filter((href) => !/^(https?|mailto):/.test(href)))) {
        const status = await page.evaluate(async (url) => (await fetch(url)).status, href);
        expect(status, `GET ${href}`).toBe(200);
      }
      // The spec files served are the built ones.
      const served = await page.evaluate(async () => (await fetch("openapi.json")).json());
      expect(served).toEqual(readDistJson("openapi.json"));

      // Following the links by clicking reaches both pages.
      await follow(page, "endpoint.html");
      await waitingFor("endpoint.html's heading", () => page.locator("h1").waitFor());
      await waitingFor("the way back to index.html", () => page.goBack());
      await follow(page, "api.html");
      await waitForRedocHydration(page);
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "API page: every operation of openapi.json has its route with method, path and auth class",
    async () => {
      const openapi = readDistJson("openapi.json");
      const expected = expectedOperations(openapi);
      expect(expected).toHaveLength(operationCount);
      const page = await browser.newPage();
      await openPage(page, `${server.url}api.html`);
      await waitForRedocHydration(page);

      const tags = [...new Set(expected.map((op) => op.tag))];
      const sidebar = await sidebarOperations(page, tags);
      expect(sidebar).toHaveLength(expected.length);

      for (const op of expected) {
        const entry = sidebar.find((item) => item.tag === op.tag && item.text.split("\n")[0] === op.summary);
        expect(entry, `sidebar entry for ${op.operationId} (${op.summary})`).toBeDefined();
        if (!entry) continue;
        expect(entry.text.split("\n"), `method of ${op.operationId} in the sidebar`).toContain(op.method);

        const section = await openOperation(page, entry.href);
        await until(
          `${op.operationId}'s heading`,
          async () => (await section.locator("h2").first().textContent()) ?? "",
        ).toContain(op.summary);
        // Redoc may still be re-rendering the section right after its heading appears.
        await until(`${op.operationId} shows "${op.method} ${op.path}"`, () => flatText(section)).toContain(
          `${op.method} ${op.path}`,
        );
        const text = await flatText(section);
        expect(text, `${op.operationId} shows its x-auth-class`).toContain(
          `Authentication class: ${op.authClass}`,
        );
      }
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "API page at 1400 px: every operation shows its curl, TypeScript and Python samples, as api.openapi.json has them, and its route reads whole",
    async () => {
      const document = readDistJson("api.openapi.json");
      const expected = expectedOperations(document);
      expect(expected).toHaveLength(operationCount);
      const samplesOf = (operationId: string) =>
        operationEntries(document)
          .filter(({ operation }) => operation.operationId === operationId)
          .flatMap(({ operation }) =>
            Array.isArray(operation["x-codeSamples"]) ? operation["x-codeSamples"] : [],
          )
          .filter(isObject);
      const page = await browser.newPage();
      await openPage(page, `${server.url}api.html`);
      await waitForRedocHydration(page);
      const sidebar = await sidebarOperations(page, [...new Set(expected.map((op) => op.tag))]);

      for (const { label } of REDOC_CODE_SAMPLES.languages) {
        for (const op of expected) {
          const sample = samplesOf(op.operationId).find((s) => s.label === label);
          expect(sample, `${op.operationId} has a ${label} sample in api.openapi.json`).toBeDefined();
          const entry = sidebar.find(
            (item) => item.tag === op.tag && item.text.split("\n")[0] === op.summary,
          );
          const section = await openOperation(page, entry?.href ?? "");
          await shownSamplesPanel(section);
          await chooseSampleLanguage(page, section, label);
          await until(`${op.operationId}'s samples in ${label}`, () => sampleLanguage(section)).toBe(label);
          await until(`${op.operationId} shows its ${label} sample`, async () =>
            (await sampleCode(section)).trimEnd(),
          ).toBe(String(sample?.source).trimEnd());
          // The whole route once (its text and tables), then each language's sample box.
          const problems =
            label === REDOC_CODE_SAMPLES.languages[0]?.label ? readingProblems : overflowingBoxes;
          expect(await problems(page), `${op.operationId}, ${label}, at 1400 px`).toEqual([]);
          if (op.operationId === "new_order") {
            await screenshot(page, artifactPath(`api-new-order-${label.toLowerCase()}.png`));
          }
        }
      }
      await page.close();
      expectNoViolations();
    },
    SAMPLES_TEST_TIMEOUT,
  );

  it(
    "API page: the Servers panel shows each server at a usable address and its description as plain text",
    async () => {
      const page = await browser.newPage();
      await openPage(page, `${server.url}api.html`);
      await waitForRedocHydration(page);
      const servers = page
        .locator('[data-component-name="Panel/Panel"]', { has: page.getByText("Servers", { exact: true }) })
        .first();
      const openapi = readDistJson("openapi.json");
      const first = objectAt(Array.isArray(openapi.servers) ? openapi.servers[0] : undefined);
      const baseUrl = String(objectAt(objectAt(first.variables).base_url).default);
      expect(baseUrl).toMatch(/^http:\/\//);
      // The templated server shows at its variable's default, an address a reader can use.
      await until("the Servers panel's address", () => flatText(servers)).toContain(baseUrl);
      const text = await flatText(servers);
      expect(text).toContain("npx marketapi-server");
      expect(text).not.toContain("`");
      expect(text, "no raw URL template such as {base_url}").not.toMatch(/[{}]/);
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "API page: new_order shows its parameters, responses, auth badge and the order-type table",
    async () => {
      const openapi = readDistJson("openapi.json");
      const newOrder = objectAt(objectAt(objectAt(openapi.paths)["/api/v3/order"]).post);
      const page = await browser.newPage();
      await openPage(page, `${server.url}api.html`);
      await waitForRedocHydration(page);
      const entry = await sidebarEntry(page, "Trading", "New order");
      const section = await openOperation(page, entry.href);

      for (const name of ["side", "type", "timeInForce", "quantity", "price"]) {
        await until(`new_order's parameter ${name}`, () =>
          section.getByText(name, { exact: true }).first().isVisible(),
        ).toBe(true);
      }
      for (const code of ["200", "400"]) {
        await until(`new_order's response ${code}`, () =>
          section.getByText(code, { exact: true }).first().isVisible(),
        ).toBe(true);
      }
      await until("new_order's auth badge", () =>
        section.getByText("auth: trade", { exact: true }).first().isVisible(),
      ).toBe(true);
      await screenshot(page, artifactPath("api-new-order.png"));

      // The generated x-order-type-rules table: one row per order type of the spec.
      const rulesTable = section.locator("table", { has: page.locator("th", { hasText: "Order type" }) });
      await waitingFor(`the order-type table (${rulesTable})`, () => rulesTable.scrollIntoViewIfNeeded());
      expect(await rulesTable.isVisible()).toBe(true);
      const rows = await rulesTable.locator("tbody tr").allInnerTexts();
      const rules = objectAt(newOrder["x-order-type-rules"]);
      expect(rows.map((row) => row.split("\t")[0]?.trim())).toEqual(Object.keys(rules));
      const limit = rows.find((row) => row.startsWith("LIMIT\t"));
      for (const name of stringsAt(objectAt(rules.LIMIT).required)) expect(limit).toContain(name);
      await screenshot(page, artifactPath("api-order-type-rules.png"));
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "API page: the introduction lists the operations, the auth classes and the signing rule",
    async () => {
      const openapi = readDistJson("openapi.json");
      const page = await browser.newPage();
      await openPage(page, `${server.url}api.html`);
      await waitForRedocHydration(page);
      await screenshot(page, artifactPath("api.png"));

      const overview = page
        .locator("table", { has: page.locator("th").filter({ hasText: /^Request$/ }) })
        .filter({ has: page.locator("th").filter({ hasText: /^Operation$/ }) })
        .first();
      const rows = (await overview.locator("tbody tr").allInnerTexts()).map((row) =>
        row.replace(/\s+/g, " "),
      );
      const expected = expectedOperations(openapi);
      expect(rows).toHaveLength(expected.length);
      for (const op of expected) {
        expect(
          rows.some((row) => row.includes(op.summary) && row.includes(`${op.method} ${op.path}`)),
          `overview row of ${op.operationId}`,
        ).toBe(true);
      }

      const signing = objectAt(
        objectAt(objectAt(objectAt(openapi.components).securitySchemes).signature)["x-signing"],
      );
      const heading = page.getByRole("heading", { name: "Request signing" }).first();
      await waitingFor(`the heading "Request signing" (${heading})`, () => heading.scrollIntoViewIfNeeded());
      expect(await heading.isVisible()).toBe(true);
      const intro = await flatText(page.locator("main").first());
      expect(intro).toContain(String(signing.algorithm));
      const vectors = Array.isArray(signing.testVectors) ? signing.testVectors.filter(isObject) : [];
      expect(vectors.length).toBeGreaterThan(0);
      for (const vector of vectors) expect(intro).toContain(String(vector.signature));
      for (const authClass of ["none", "market_data", "trade", "user_data"]) {
        expect(intro).toContain(authClass);
      }
      await screenshot(page, artifactPath("api-request-signing.png"));
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "Endpoint page: its first screen says what the record is, its required fields and an example; the FHIR-version note follows",
    async () => {
      const schema = readDistJson("endpoint.schema.json");
      const page = await browser.newPage();
      await openPage(page, `${server.url}endpoint.html`);
      const screen = page.viewportSize()?.height ?? 0;
      expect(screen).toBeGreaterThan(0);
      const bottom = async (locator: Locator) => {
        const box = await locator.boundingBox();
        return box ? box.y + box.height : Number.POSITIVE_INFINITY;
      };

      const lead = page.locator("main p.lead").first();
      expect(await lead.textContent()).toMatch(/^The FHIR Endpoint resource/);
      expect(await bottom(lead), "the lead is on the first screen").toBeLessThanOrEqual(screen);

      const required = page.locator("#required-fields li");
      const names = await required.evaluateAll((items) =>
        items.map((li) => li.querySelector("code")?.textContent ?? ""),
      );
      expect(names).toEqual(stringsAt(schema.required));
      for (let i = 0; i < names.length; i++) {
        expect(await bottom(required.nth(i)), `${names[i]} is on the first screen`).toBeLessThanOrEqual(
          screen,
        );
      }

      const example = page.locator("#example pre");
      expect(await bottom(example), "the example is on the first screen").toBeLessThanOrEqual(screen);
      const record = JSON.parse((await example.textContent()) ?? "");
      expect(validateEndpoint(record)).toEqual({ valid: true });
      for (const name of names) expect(record).toHaveProperty(name);

      const note = page.locator("#about-this-schema");
      expect(await note.textContent()).toMatch(/R5/);
      const noteTop = (await note.boundingBox())?.y ?? 0;
      expect(noteTop, "the R4/R5 note comes after the example").toBeGreaterThanOrEqual(await bottom(example));
      expect(noteTop, "and after the required fields").toBeGreaterThanOrEqual(await bottom(required.last()));
      await screenshot(page, artifactPath("endpoint-first-screen.png"));
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "Endpoint page lists every field of the schema, the six status values and the payloadMimeType pattern",
    async () => {
      const schema = readDistJson("endpoint.schema.json");
      const page = await browser.newPage();
      await openPage(page, `${server.url}endpoint.html`);
      await screenshot(page, artifactPath("endpoint.png"));

      const fields = Object.keys(objectAt(schema.properties));
      const rendered = await page
        .locator("#fields > table > tbody > tr > td.name")
        .evaluateAll((cells) => cells.map((cell) => cell.textContent?.trim()));
      expect(rendered).toEqual(fields);
      const required = new Set(stringsAt(schema.required));
      for (const field of fields) {
        const row = page.locator(`#field-${field}`);
        expect(await row.count(), `one row for ${field}`).toBe(1);
        expect((await row.locator("td").nth(2).textContent())?.trim()).toBe(
          required.has(field) ? "required" : "optional",
        );
      }
      // Types are datatype names, not $refs.
      const typeOf = async (field: string) =>
        ((await page.locator(`#field-${field} td.type`).textContent()) ?? "").replace(/\s+/g, "");
      expect(await typeOf("connectionType")).toBe("Coding");
      expect(await typeOf("payloadType")).toBe("CodeableConcept[]");

      const status = stringsAt(objectAt(objectAt(schema.properties).status).enum);
      expect(status).toHaveLength(6);
      const statusSection = page.locator("#status-values");
      await waitingFor(`the status values (${statusSection})`, () => statusSection.scrollIntoViewIfNeeded());
      expect(await statusSection.locator("li").allInnerTexts()).toEqual(status);
      await screenshot(page, artifactPath("endpoint-status-values.png"));

      const pattern = String(objectAt(objectAt(objectAt(schema.properties).payloadMimeType).items).pattern);
      expect(await page.locator("#payload-mime-type-pattern .callout").textContent()).toBe(pattern);

      for (const name of Object.keys(objectAt(schema.$defs))) {
        const heading = page.locator(`#def-${name} h3`);
        expect(await heading.isVisible(), `datatype ${name}`).toBe(true);
        const words = ((await heading.textContent()) ?? "").trim().split(/\s+/);
        expect(new Set(words).size, `the heading of ${name} says each word once: ${words.join(" ")}`).toBe(
          words.length,
        );
      }
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );
  it(
    "API changelog: linked from the index, a section per released version; a release's changes render by class",
    async () => {
      const page = await browser.newPage();
      await openPage(page, `${server.url}index.html`);
      await follow(page, "changes.html");
      expect(await page.locator("h1").textContent()).toBe("API changelog");
      const releasesDir = join(PACKAGE_DIR, "..", "..", "specs", "releases");
      const versions = readdirSync(releasesDir, { withFileTypes: true }).filter((e) => e.isDirectory());
      expect(versions.length).toBeGreaterThan(0);
      for (const { name } of versions) {
        const section = page.locator(`#v-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`);
        expect(await section.locator("h2").textContent(), `section of ${name}`).toBe(`Version ${name}`);
      }
      await screenshot(page, artifactPath("changes.png"), { fullPage: true });

      // A release with changes of every class, rendered from two versions of the real spec.
      const text = readFileSync(join(releasesDir, versions[0]!.name, "spot-api.openapi.yaml"), "utf8");
      const before = specFromText("1.0.0.yaml", text).document;
      const after = structuredClone(before);
      after.info.version = "2.0.0";
      after.paths["/api/v3/ping"].get["x-auth-class"] = "market_data";
      after.paths["/api/v3/time"].get["x-weight"] = 2;
      delete after.paths["/api/v3/avgPrice"];
      const changes = diffDocuments(before, after);
      await page.setContent(
        renderChangelogPage(
          {
            title: "marketapi Spot Trading API",
            source: "specs/releases/",
            releases: [
              { version: "2.0.0", previous: "1.0.0", changes },
              { version: "1.0.0", changes: [] },
            ],
          },
          "marketapi",
        ),
      );
      const release = page.locator("#v-2_0_0");
      expect(await release.locator("h3").allTextContents()).toEqual([
        "Breaking changes",
        "Informational changes",
      ]);
      const breaking = await release.locator("ul.changes.breaking li").allInnerTexts();
      expect(breaking).toHaveLength(2);
      expect(breaking.join("\n")).toContain(
        "GET /api/v3/avgPrice (current_average_price): operation removed: clients that call it get 404",
      );
      expect(breaking.join("\n")).toContain("x-auth-class tightened from none to market_data");
      expect(breaking.join("\n")).toContain("/paths/~1api~1v3~1ping/get/x-auth-class");
      expect(await release.locator("ul.changes.informational li").allInnerTexts()).toEqual([
        expect.stringContaining("x-weight changed from 1 to 2"),
      ]);
      await screenshot(page, artifactPath("changes-with-a-release.png"), { fullPage: true });
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "the layout checks themselves see a clipped sample, a table off the screen, a word broken mid-way and a cut badge",
    async () => {
      const page = await browser.newPage();
      await page.setViewportSize({ width: 390, height: 844 });
      await page.setContent(`<div style="width:200px">
  <pre style="overflow:hidden">curl -sS "http://127.0.0.1:8080/api/v3/order?symbol=BTCUSDT&amp;side=BUY"</pre>
  <pre style="overflow-x:auto">a line that scrolls sideways, whole: "http://127.0.0.1:8080/api/v3/order?symbol=BTCUSDT"</pre>
  <pre style="max-height:30px;overflow:auto">a\nb\nc\nd\ne</pre>
  <table><tr><td style="white-space:nowrap">GET /api/v3/ticker/bookTicker?symbols=BTCUSDT,ETHUSDT</td></tr></table>
  <p class="label" style="width:60px;overflow-wrap:anywhere">Compressed/aggregate</p>
  <div class="badge" style="max-width:50px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap">auth: market_data</div>
</div>`);
      const overflowing = await overflowingBoxes(page);
      expect(overflowing).toHaveLength(3);
      expect(overflowing.join("\n")).toMatch(/pre "curl -sS.*wide/);
      expect(overflowing.join("\n")).toMatch(/pre "a b c d e".*tall/);
      expect(overflowing.join("\n")).toMatch(/table "GET .*(wide|right edge)/);
      expect(overflowing.join("\n")).not.toMatch(/scrolls sideways/);
      const broken = await wordsBrokenMidway(page, ".label");
      expect(broken.length).toBeGreaterThan(0);
      for (const line of broken) expect(line).toMatch(/^"Compressed\/aggregate" breaks between/);
      expect(await truncatedTexts(page, ".badge")).toEqual([expect.stringContaining("auth: market_data")]);

      // A phone page as the issue saw them: a name one letter per line, a word broken, a cell cut
      // off, a column past the screen, a floating button over a column, a page wider than the screen.
      await page.setContent(`<body style="margin:0">
  <table style="width:100px"><tr><td style="width:12px;overflow-wrap:anywhere">resourceType</td><td>a field</td></tr></table>
  <p style="width:70px;overflow-wrap:anywhere">quoteOrderQty MARKET</p>
  <table><tr><td style="max-width:40px;overflow:hidden;white-space:nowrap">GET /api/v3/exchangeInfo</td></tr></table>
  <table style="width:600px"><tr><td>left</td><td style="text-align:right">/api/v3/depth</td></tr></table>
  <table style="width:380px"><tr><td>a</td><td style="width:60px">under the button</td></tr></table>
  <button style="position:fixed;right:10px;bottom:10px;width:50px;height:50px">≡</button>
  <div style="overflow-x:auto;width:300px"><table style="width:900px"><tr><td>scrolls</td><td>sideways, and that is fine</td></tr></table></div>
</body>`);
      const words = await wordsSplitAcrossLines(page);
      expect(words.join("\n")).toMatch(/"resourceType" is broken across lines/);
      expect(words.join("\n")).toMatch(/"quoteOrderQty" is broken across lines/);
      expect(words.join("\n")).not.toMatch(/"a field"|sideways/);
      const cells = (await clippedOrCoveredCells(page)).join("\n");
      expect(cells).toMatch(/cell "GET \/api\/v3\/exchangeInfo".*content \d+ px wide, cut at \d+ px/);
      expect(cells).toMatch(/cell "\/api\/v3\/depth".*past the screen \(390 px\), and nothing scrolls/);
      expect(cells).toMatch(/cell "under the button".*passes under a floating button/);
      expect(cells).not.toMatch(/cell "(scrolls|sideways, and that is fine)"/);
      expect(await pageWiderThanScreen(page)).toMatch(/the page is \d+ px wide on a 390 px screen/);
      await page.close();
      browser.reset();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "static pages and the API introduction, at 1400 px and at 390 px: no word broken mid-way, no table cell cut off, past the screen or under a floating button, no code block cut off, the page no wider than the screen",
    async () => {
      const page = await browser.newPage();
      const heights: Record<string, number> = {};
      for (const { name, width, height } of WIDTHS) {
        await page.setViewportSize({ width, height });
        for (const file of ["index.html", "endpoint.html", "changes.html"]) {
          await openPage(page, `${server.url}${file}`);
          expect(await readingProblems(page), `${file} at ${width} px`).toEqual([]);
          heights[`${file} ${name}`] = await page.evaluate(() => document.documentElement.scrollHeight);
          await screenshot(page, artifactPath(`${file.replace(".html", "")}-${name}.png`), {
            fullPage: true,
          });
          if (file === "index.html") {
            // Each size stays on one line ("88.4 KiB", not "88.4" over "KiB").
            const lines = await page.locator("td.size").evaluateAll((cells) =>
              cells.map((cell) => {
                const range = document.createRange();
                range.selectNodeContents(cell);
                return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
              }),
            );
            expect(lines.length).toBeGreaterThan(0);
            expect(lines, `lines per size cell at ${width} px`).toEqual(lines.map(() => 1));
          }
        }
        await openPage(page, `${server.url}api.html`);
        await waitForRedocHydration(page);
        expect(await readingProblems(page), `api.html introduction at ${width} px`).toEqual([]);
        await screenshot(page, artifactPath(`api-${name}.png`));
      }
      // Read on a phone, the Endpoint page (mostly a table of fields) is longer, but not by a
      // column of one letter per line: its field table once made it 2.3 times as tall as on a desktop.
      expect(heights["endpoint.html phone"], "endpoint.html: height at 390 px against 1400 px").toBeLessThan(
        2 * (heights["endpoint.html desktop"] ?? 0),
      );
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "API page: the sidebar's helper shows a group's operations whatever state the group is in (open already, or left for another), and never clicks one (a click toggles it)",
    async () => {
      const tags = [...new Set(expectedOperations(readDistJson("api.openapi.json")).map((op) => op.tag))];
      expect(tags.length).toBeGreaterThan(1);
      const [first = "", second = ""] = tags;
      const page = await browser.newPage();
      await openPage(page, `${server.url}api.html`);
      await waitForRedocHydration(page);
      // Clicks on a group's link toggle it: counted, to see the helper never clicks an open group.
      await page.evaluate(() => {
        const counted = window as unknown as { groupClicks: number };
        counted.groupClicks = 0;
        document.addEventListener(
          "click",
          (event) => {
            if (event.target instanceof Element && event.target.closest(".menu-item-type-group > a"))
              counted.groupClicks += 1;
          },
          true,
        );
      });
      const groupClicks = () =>
        page.evaluate(() => (window as unknown as { groupClicks: number }).groupClicks);
      const once = await sidebarOperations(page, [first]);
      expect(once.length).toBeGreaterThan(0);
      // Open already: a click would fold it.
      expect(await sidebarOperations(page, [first])).toEqual(once);
      // Left for another group and back, in quick turns.
      const other = await sidebarOperations(page, [second]);
      for (let turn = 0; turn < 3; turn++)
        expect(await sidebarOperations(page, [second, first, first])).toEqual([...other, ...once, ...once]);
      expect(await groupClicks(), "clicks on the sidebar's groups").toBe(0);
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "API page: the sidebar shows badges whole and breaks titles between words; the language menu has an icon for each language",
    async () => {
      const document = readDistJson("api.openapi.json");
      const expected = expectedOperations(document);
      const page = await browser.newPage();
      await openPage(page, `${server.url}api.html`);
      await waitForRedocHydration(page);
      // Redoc shows one tag group's operations at a time, so each group is opened and measured in turn.
      const badgeTexts: string[] = [];
      const truncated: string[] = [];
      const broken: string[] = [];
      let sidebarLength = 0;
      for (const tag of new Set(expected.map((op) => op.tag))) {
        const opened = await sidebarOperations(page, [tag]);
        sidebarLength += opened.length;
        const badges = page.locator(
          '.menu-item-type-operation [data-component-name="Tag/Tag"]:not(.tag-http) > div',
        );
        badgeTexts.push(...(await badges.allTextContents()));
        truncated.push(
          ...(await truncatedTexts(page, '.menu-item-type-operation [data-component-name="Tag/Tag"] > div')),
        );
        broken.push(...(await wordsBrokenMidway(page, ".menu-item-type-operation [data-text]")));
      }
      expect(sidebarLength).toBe(expected.length);
      expect(badgeTexts).toContain("auth: market_data");
      expect(badgeTexts).toContain("auth: trade");
      expect(truncated).toEqual([]);
      expect(broken).toEqual([]);
      await sidebarOperations(page, [...new Set(expected.map((op) => op.tag))]);
      await screenshot(page, artifactPath("api-sidebar.png"), {
        clip: { x: 0, y: 0, width: 300, height: 900 },
      });

      const entry = await sidebarEntry(page, "Trading", "New order");
      const section = await openOperation(page, entry.href);
      await shownSamplesPanel(section);
      const items = await openLanguageMenu(page, section);
      const icons = await items.evaluateAll((elements) =>
        elements.map((item) => {
          const label = item.querySelector("span[title]");
          const slot = label?.previousElementSibling as HTMLElement | null;
          const drawn = slot?.querySelector("svg") ?? null;
          const before = slot ? getComputedStyle(slot, "::before") : undefined;
          const width = drawn
            ? drawn.getBoundingClientRect().width
            : before?.backgroundImage.startsWith("url(")
              ? Number.parseFloat(before.width)
              : 0;
          return { label: label?.getAttribute("title") ?? "", width };
        }),
      );
      expect(icons.map((icon) => icon.label)).toEqual(REDOC_CODE_SAMPLES.languages.map((l) => l.label));
      for (const icon of icons) expect(icon.width, `${icon.label} has an icon`).toBeGreaterThanOrEqual(12);
      await screenshot(page, artifactPath("api-language-menu.png"));
      await page.keyboard.press("Escape");
      await page.close();
      expectNoViolations();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "API page at 390 px: every operation's route reads whole (no word broken, no table cell cut off or under the menu button) and its curl, TypeScript and Python samples show whole",
    async () => {
      const document = readDistJson("api.openapi.json");
      const expected = expectedOperations(document);
      const page = await browser.newPage();
      await openPage(page, `${server.url}api.html`);
      await waitForRedocHydration(page);
      const sidebar = await sidebarOperations(page, [...new Set(expected.map((op) => op.tag))]);
      expect(sidebar).toHaveLength(expected.length);
      await page.setViewportSize({ width: 390, height: 844 });
      for (const { label } of REDOC_CODE_SAMPLES.languages) {
        for (const entry of sidebar) {
          const section = await openOperation(page, entry.href);
          const panel = await shownSamplesPanel(section);
          await chooseSampleLanguage(page, section, label);
          await until(`${entry.href}'s samples in ${label}`, () => sampleLanguage(section)).toBe(label);
          const problems =
            label === REDOC_CODE_SAMPLES.languages[0]?.label ? readingProblems : overflowingBoxes;
          expect(await problems(page), `${entry.href}, ${label}, at 390 px`).toEqual([]);
          if (entry.text.startsWith("New order")) {
            await waitingFor(`new_order's samples panel in ${label}`, () => panel.scrollIntoViewIfNeeded());
            await screenshot(page, artifactPath(`api-new-order-${label.toLowerCase()}-phone.png`));
          }
        }
      }
      await page.close();
      expectNoViolations();
    },
    SAMPLES_TEST_TIMEOUT,
  );
});
