// `npm run bench` in packages/docs: the figures of the README.
//  - size of each HTML page of dist/ (raw and gzip),
//  - build time: median of 3 runs of the build command (a fresh `tsx src/build-command.ts` each),
//  - in headless Chromium, median over fresh browser contexts, from navigation start to
//    (a) the 17th row of the operations overview being visible on api.html,
//    (b) Redoc having hydrated the page (the sidebar answers clicks),
//    (c) the 17th operation's own page being visible when opened by its link.
// Prints a markdown table. Needs dist/ built (turbo runs `build` before `bench`) and Chromium.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  hasChromium,
  isLocalUrl,
  waitForRedocHydration,
} from "../test/support/chromium.js";
import {
  assertDistBuilt,
  DIST_DIR,
  expectedOperations,
  PACKAGE_DIR,
  readDistJson,
} from "../test/support/dist.js";
import { sidebarOperations } from "../test/support/redoc.js";
import { serveDirectory } from "../test/support/static-server.js";

const BUILD_RUNS = 3;
const PAGE_LOADS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/** Runs the package's build script (`tsx src/build-command.ts`) as a fresh process each time. */
function measureBuilds(): number[] {
  const tsxCli = createRequire(import.meta.url).resolve("tsx/cli");
  const times: number[] = [];
  for (let run = 0; run < BUILD_RUNS; run++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [tsxCli, "src/build-command.ts"], {
      cwd: PACKAGE_DIR,
      encoding: "utf8",
    });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`build failed:\n${result.stdout}\n${result.stderr}`);
  }
  return times;
}

interface LoadTimes {
  overview: number;
  hydrated: number;
  lastOperation: number;
}

async function measurePageLoads(): Promise<LoadTimes[]> {
  const openapi = readDistJson("openapi.json");
  const operations = expectedOperations(openapi);
  const last = operations[operations.length - 1];
  if (!last) throw new Error("openapi.json has no operations");
  const server = await serveDirectory(DIST_DIR);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const newPage = async () => {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      await context.route("**/*", (route) =>
        isLocalUrl(route.request().url()) ? route.continue() : route.abort("blockedbyclient"),
      );
      return { context, page: await context.newPage() };
    };

    // Find the route of the last operation the way a reader would: through the sidebar.
    const warmUp = await newPage();
    await warmUp.page.goto(`${server.url}api.html`);
    await waitForRedocHydration(warmUp.page);
    const lastEntry = (await sidebarOperations(warmUp.page, [last.tag])).find(
      (entry) => entry.text.split("\n")[0] === last.summary,
    );
    await warmUp.context.close();
    if (!lastEntry) throw new Error(`no sidebar entry for ${last.operationId}`);
    const sectionId = lastEntry.href.replace(/^#/, "");

    const results: LoadTimes[] = [];
    for (let load = 0; load < PAGE_LOADS; load++) {
      // (a) and (b): the landing page.
      const landing = await newPage();
      await landing.page.goto(`${server.url}api.html`, { waitUntil: "commit" });
      const overview = await landing.page.waitForFunction(
        (count) => {
          const table = [...document.querySelectorAll("table")].find(
            (t) =>
              [...t.querySelectorAll("th")].map((th) => th.textContent?.trim()).join("|") ===
              "Operation|Request",
          );
          const row = table?.querySelectorAll("tbody tr")[count - 1] as HTMLElement | undefined;
          return row && row.getBoundingClientRect().height > 0 ? performance.now() : false;
        },
        operations.length,
        { polling: "raf", timeout: 60_000 },
      );
      const overviewAt = Number(await overview.jsonValue());
      await waitForRedocHydration(landing.page, 60_000);
      const hydratedAt = await landing.page.evaluate(() => performance.now());
      await landing.context.close();

      // (c): the last operation's page, opened by its link.
      const deep = await newPage();
      await deep.page.goto(`${server.url}api.html${lastEntry.href}`, { waitUntil: "commit" });
      const shown = await deep.page.waitForFunction(
        ({ id, summary }) => {
          const section = document.querySelector(`[data-item-kind="httpItem"][data-section-id="${id}"]`);
          const heading = section?.querySelector("h2");
          return heading?.textContent?.includes(summary) && heading.getBoundingClientRect().height > 0
            ? performance.now()
            : false;
        },
        { id: sectionId, summary: last.summary },
        { polling: "raf", timeout: 60_000 },
      );
      const lastAt = Number(await shown.jsonValue());
      await deep.context.close();
      results.push({ overview: overviewAt, hydrated: hydratedAt, lastOperation: lastAt });
    }
    return results;
  } finally {
    await browser.close();
    await server.close();
  }
}

async function main(): Promise<void> {
  assertDistBuilt();
  const rows: [string, string][] = [];
  for (const file of readdirSync(DIST_DIR)
    .filter((name) => name.endsWith(".html"))
    .sort()) {
    const bytes = statSync(join(DIST_DIR, file)).size;
    const gzipped = gzipSync(readFileSync(join(DIST_DIR, file))).length;
    rows.push([`${file} size`, `${kib(bytes)} (gzip ${kib(gzipped)})`]);
  }

  const builds = measureBuilds();
  rows.push([
    `build time (median of ${BUILD_RUNS}; \`tsx src/build-command.ts\`)`,
    `${ms(median(builds))} (runs: ${builds.map(ms).join(", ")})`,
  ]);

  if (hasChromium) {
    const loads = await measurePageLoads();
    const pick = (key: keyof LoadTimes) => loads.map((load) => load[key]);
    const spread = (values: number[]) =>
      `${ms(median(values))} (min ${ms(Math.min(...values))}, max ${ms(Math.max(...values))})`;
    rows.push([
      `api.html: 17th row of the operations overview visible (median of ${PAGE_LOADS})`,
      spread(pick("overview")),
    ]);
    rows.push([
      `api.html: Redoc hydrated, sidebar interactive (median of ${PAGE_LOADS})`,
      spread(pick("hydrated")),
    ]);
    rows.push([
      `api.html#<17th operation>: its page visible (median of ${PAGE_LOADS})`,
      spread(pick("lastOperation")),
    ]);
  } else {
    console.warn(`[@marketapi/docs bench] no Chromium at ${CHROMIUM_PATH}: page-load figures skipped.`);
  }

  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(`| ${"Figure".padEnd(width)} | Value |`);
  console.log(`| ${"-".repeat(width)} | --- |`);
  for (const [name, value] of rows) console.log(`| ${name.padEnd(width)} | ${value} |`);
  console.log(
    `\nNode ${process.version}, ${process.platform}/${process.arch}, Chromium at ${CHROMIUM_PATH}.`,
  );
}

await main();
