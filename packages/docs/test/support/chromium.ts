// Headless Debian Chromium driven by playwright-core, with a guard that records every request
// leaving the loopback interface (and blocks it), every console error and every page error.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page, type PageScreenshotOptions } from "playwright-core";
import { waitingFor } from "./waits.js";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM_PATH);

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** True for URLs that stay on this machine: loopback hosts and in-page schemes (data:, blob:, about:). */
export function isLocalUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (["data:", "blob:", "about:"].includes(parsed.protocol)) return true;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

export interface Violations {
  remoteRequests: string[];
  consoleErrors: string[];
  pageErrors: string[];
}

export interface GuardedBrowser {
  context: BrowserContext;
  violations: Violations;
  /** Empties the recorded violations (between tests). */
  reset(): void;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchGuardedChromium(): Promise<GuardedBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), "marketapi-docs-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  });
  // Playwright's 30 s default for each wait is a race on a loaded 2-core machine. 0 turns its
  // clock off: a wait ends when the page is ready, and only the test's limit, set for hangs
  // (vitest.shared.ts), stops one that never is.
  context.setDefaultTimeout(0);
  const violations: Violations = { remoteRequests: [], consoleErrors: [], pageErrors: [] };
  const remote = (url: string) => {
    if (!violations.remoteRequests.includes(url)) violations.remoteRequests.push(url);
  };
  // Every request of every page goes through here; anything not local is recorded and aborted.
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    if (isLocalUrl(url)) await route.continue();
    else {
      remote(url);
      await route.abort("blockedbyclient");
    }
  });
  // Requests the router does not see (e.g. from service workers) still show up as events.
  context.on("request", (request) => {
    if (!isLocalUrl(request.url())) remote(request.url());
  });
  const watch = (page: Page) => {
    page.on("console", (message) => {
      if (message.type() === "error") violations.consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => violations.pageErrors.push(`${page.url()}: ${error.message}`));
    page.on("websocket", (socket) => {
      if (!isLocalUrl(socket.url().replace(/^ws/, "http"))) remote(socket.url());
    });
  };
  for (const page of context.pages()) watch(page);
  context.on("page", watch);
  return {
    context,
    violations,
    reset() {
      violations.remoteRequests.length = 0;
      violations.consoleErrors.length = 0;
      violations.pageErrors.length = 0;
    },
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Redoc pre-renders its HTML and then hydrates it; clicks before hydration would follow the
 * pre-rendered hrefs (real paths such as /trading) instead of the hash router. React marks the
 * DOM nodes it has taken over with `__reactProps$…` keys; wait until the sidebar has them.
 */
export async function waitForRedocHydration(page: Page, timeout = 0): Promise<void> {
  await waitingFor(`Redoc to hydrate the sidebar of ${page.url()}`, () =>
    page.waitForFunction(
      () => {
        const link = document.querySelector(".menu-item-type-group > a");
        return link !== null && Object.keys(link).some((key) => key.startsWith("__reactProps$"));
      },
      undefined,
      // Checked on a timer rather than on animation frames (Playwright's default): a page Chromium
      // does not paint (a tab behind another, a starved renderer) may get no frame for a long time.
      // The tests pass no timeout (0: none); the bench bounds its loads.
      { timeout, polling: 100 },
    ),
  );
}

/** Loads `url` in the page, and fails unless it answers 200. */
export async function openPage(page: Page, url: string): Promise<void> {
  const response = await waitingFor(`the page ${url} to load`, () => page.goto(url));
  if (response?.status() !== 200) throw new Error(`GET ${url}: expected 200, got ${response?.status()}`);
}

/** Saves a screenshot to the test artifacts, for a reader to look at. */
export async function screenshot(
  page: Page,
  path: string,
  options: PageScreenshotOptions = {},
): Promise<void> {
  await waitingFor(`a screenshot of ${page.url()} to ${path}`, () => page.screenshot({ path, ...options }));
}
