// A fork's site: `marketapi-docs build` on a fork of this repository's spec (renamed product, a
// path parameter, a JSON body, a bearer-token operation) writes docs in the fork's name that say
// nothing of this repository, claim nothing about its tests, and name the folders it was given.
// The pages are then opened in real headless Chromium. The fork also holds every way a spec can
// make the page load something remote (withRemoteLoads): the pages must load none of them.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  CHROMIUM_PATH,
  type GuardedBrowser,
  hasChromium,
  launchGuardedChromium,
  waitForRedocHydration,
} from "./support/chromium.js";
import { PACKAGE_DIR } from "./support/dist.js";
import { FORK_TITLE, forkSpec, withRemoteLoads } from "./support/fork.js";
import { type StaticServer, serveDirectory } from "./support/static-server.js";

const BIN = join(PACKAGE_DIR, "bin", "marketapi-docs.js");
const BUILD_TIMEOUT = 600_000;
/** What a fork's site must not say: this repository's name, site, and its record page. */
const OURS = [/marketapi/i, /FHIR/, /Endpoint record/i, /endpoint\.html/];

let work: string;
let site: string;
let build: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "docs-fork-"));
  writeFileSync(join(work, "acme.yaml"), stringify(withRemoteLoads(forkSpec())));
  mkdirSync(join(work, "rel", "1.1.0"), { recursive: true });
  writeFileSync(join(work, "rel", "1.1.0", "acme.yaml"), stringify(forkSpec("1.1.0")));
  site = join(work, "site");
  build = await new Promise((resolve) =>
    execFile(
      process.execPath,
      [BIN, "build", "--spec", "acme.yaml", "--out", "site", "--releases", "rel"],
      { cwd: work, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}, BUILD_TIMEOUT);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("marketapi-docs build on a fork of the spec", () => {
  it("builds, with samples for the fork's path parameter, JSON body and bearer operations", () => {
    expect(build.code, build.stderr).toBe(0);
    expect(build.stdout).not.toMatch(/note: no code sample/);
    const page = JSON.parse(readFileSync(join(site, "api.openapi.json"), "utf8"));
    const labels = (path: string, method: string) =>
      (page.paths[path][method]["x-codeSamples"] ?? []).map((sample: { label: string }) => sample.label);
    for (const [path, method] of [
      ["/api/v3/order/{id}", "get"],
      ["/api/v3/alerts", "post"],
      ["/api/v3/profile", "get"],
    ] as const) {
      expect(labels(path, method), `${method} ${path}`).toEqual(["curl", "Python"]);
    }
  });

  it("writes no Endpoint page and nothing of this repository's, in any file", () => {
    const files = readdirSync(site).sort();
    expect(files).toEqual([
      "api.html",
      "api.openapi.json",
      "changes.html",
      "index.html",
      "openapi.json",
      "openapi.yaml",
    ]);
    const found = files.flatMap((file) => {
      const text = readFileSync(join(site, file), "utf8");
      return OURS.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern}`);
    });
    expect(found).toEqual([]);
  });

  it("carries the fork's name, links and the folder it was given; claims nothing about tests", () => {
    const index = readFileSync(join(site, "index.html"), "utf8");
    expect(index).toContain(`<title>${FORK_TITLE} documentation</title>`);
    expect(index).toContain(`<h1>${FORK_TITLE} documentation</h1>`);
    expect(index).toContain('<a href="https://acme.example/guide">Acme developer guide</a>');
    expect(index).toContain('<a href="https://acme.example/support">Acme API team</a>');
    expect(index).toContain("a curl and Python sample,");
    expect(index).not.toMatch(/test run|reference server/);
    const api = JSON.parse(readFileSync(join(site, "api.openapi.json"), "utf8"));
    expect(api.info["x-logo"].altText).toBe(FORK_TITLE);
    expect(api.info.description).not.toMatch(/tests run every sample|reference server \(/);
    const changes = readFileSync(join(site, "changes.html"), "utf8");
    expect(changes).toContain("<footer>Generated from the released versions in <code>rel</code>.</footer>");
  });
});

describe.skipIf(!hasChromium)(`a fork's site in headless Chromium (${CHROMIUM_PATH})`, () => {
  let server: StaticServer;
  let browser: GuardedBrowser;

  beforeAll(async () => {
    server = await serveDirectory(site);
    browser = await launchGuardedChromium();
  }, BUILD_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it(
    "shows the fork's name on the index and in the API page's sidebar logo, and no text of ours",
    async () => {
      const page = await browser.newPage();
      await page.goto(`${server.url}index.html`);
      expect(await page.title()).toBe(`${FORK_TITLE} documentation`);
      const indexText = await page.locator("body").innerText();
      expect(indexText).toContain(`${FORK_TITLE} docs`);
      expect(indexText).not.toMatch(/marketapi|Endpoint record/i);
      await page.goto(`${server.url}api.html`);
      await waitForRedocHydration(page);
      expect(await page.locator(`img[alt="${FORK_TITLE}"]`).count()).toBe(1);
      expect(await page.locator("body").innerText()).not.toMatch(/marketapi/i);
      expect(browser.violations.remoteRequests).toEqual([]);
      expect(browser.violations.pageErrors).toEqual([]);
    },
    BUILD_TIMEOUT,
  );
});
