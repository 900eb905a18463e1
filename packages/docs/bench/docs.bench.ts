// `npm run bench` in packages/docs: the figures of the README, measured side by side in one run.
//  - api.html against a plain `redocly build-docs --inlineBundle` page of the same spec
//    (packages/spec/dist/openapi.json, no options, built here into a temporary folder):
//    size (raw and gzip), and in headless Chromium, from navigation start, the time until
//    (a) Redoc has hydrated the page (the sidebar answers clicks), and
//    (b) the 17th operation's page is visible when opened by its link (…#/<tag>/<operation>);
//    loads alternate between the two pages (A B A B …), each in a fresh browser context;
//  - the other pages' sizes and the build time (median of 3 runs of `tsx src/build-command.ts`).
// Prints markdown tables: medians, min–max, and the ratio api.html / plain (of the medians, and the
// median of the ratios of each pair of loads). Needs dist/ built (turbo runs `build` first) and Chromium.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { openapiJsonPath } from "@marketapi/spec";
import { type Browser, chromium } from "playwright-core";
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
  type ExpectedOperation,
  expectedOperations,
  PACKAGE_DIR,
  readDistJson,
} from "../test/support/dist.js";
import { sidebarOperations } from "../test/support/redoc.js";
import { serveDirectory } from "../test/support/static-server.js";

const BUILD_RUNS = 3;
const PAGE_LOADS = 9;
const LOAD_TIMEOUT = 120_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const ms = (value: number) => `${Math.round(value)} ms`;
const ratio = (value: number) => `${value.toFixed(2)}×`;
const spread = (values: number[]) =>
  `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})`;

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

/** The peer: `redocly build-docs <spec> --inlineBundle` with no options, in a folder of its own. */
function buildPlainPage(folder: string): string {
  const cli = join(
    dirname(createRequire(import.meta.url).resolve("@redocly/cli/package.json")),
    "bin",
    "cli.js",
  );
  writeFileSync(join(folder, "openapi.json"), readFileSync(openapiJsonPath));
  const output = join(folder, "plain.html");
  const run = spawnSync(
    process.execPath,
    [cli, "build-docs", "openapi.json", "--inlineBundle", "--output", output],
    { cwd: folder, encoding: "utf8", env: { ...process.env, REDOCLY_TELEMETRY: "off" } },
  );
  if (run.status !== 0) throw new Error(`plain build-docs failed:\n${run.stdout}\n${run.stderr}`);
  return output;
}

interface Page {
  label: string;
  url: string;
}

interface LoadTimes {
  hydrated: number;
  lastOperation: number;
}

async function newContext(browser: Browser) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // The plain page asks cdn.redoc.ly for its footer logo; nothing leaves the machine.
  await context.route("**/*", (route) =>
    isLocalUrl(route.request().url()) ? route.continue() : route.abort("blockedbyclient"),
  );
  return { context, page: await context.newPage() };
}

/** The route of an operation, found the way a reader finds it: through the sidebar. */
async function routeOf(browser: Browser, page: Page, operation: ExpectedOperation): Promise<string> {
  const { context, page: tab } = await newContext(browser);
  try {
    await tab.goto(page.url);
    await waitForRedocHydration(tab, LOAD_TIMEOUT);
    const entry = (await sidebarOperations(tab, [operation.tag])).find(
      (item) => item.text.split("\n")[0] === operation.summary,
    );
    if (!entry) throw new Error(`${page.label}: no sidebar entry for ${operation.operationId}`);
    return entry.href;
  } finally {
    await context.close();
  }
}

async function loadOnce(browser: Browser, page: Page, route: string, summary: string): Promise<LoadTimes> {
  const landing = await newContext(browser);
  await landing.page.goto(page.url, { waitUntil: "commit" });
  await waitForRedocHydration(landing.page, LOAD_TIMEOUT);
  const hydrated = await landing.page.evaluate(() => performance.now());
  await landing.context.close();

  const deep = await newContext(browser);
  await deep.page.goto(`${page.url}${route}`, { waitUntil: "commit" });
  const shown = await deep.page.waitForFunction(
    ({ id, title }) => {
      const section = document.querySelector(`[data-item-kind="httpItem"][data-section-id="${id}"]`);
      const heading = section?.querySelector("h2");
      return heading?.textContent?.includes(title) && heading.getBoundingClientRect().height > 0
        ? performance.now()
        : false;
    },
    { id: route.replace(/^#/, ""), title: summary },
    { polling: "raf", timeout: LOAD_TIMEOUT },
  );
  const lastOperation = Number(await shown.jsonValue());
  await deep.context.close();
  return { hydrated, lastOperation };
}

async function measureSideBySide(ours: Page, plain: Page, last: ExpectedOperation) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const routes = [await routeOf(browser, ours, last), await routeOf(browser, plain, last)];
    const times: [LoadTimes[], LoadTimes[]] = [[], []];
    for (let load = 0; load < PAGE_LOADS; load++) {
      // Alternate which page goes first, so that neither always gets the warmer machine.
      const order = load % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        const page = index === 0 ? ours : plain;
        times[index as 0 | 1].push(await loadOnce(browser, page, routes[index] ?? "", last.summary));
      }
    }
    return { routes, times };
  } finally {
    await browser.close();
  }
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

async function main(): Promise<void> {
  assertDistBuilt();
  const folder = mkdtempSync(join(tmpdir(), "marketapi-docs-bench-"));
  try {
    const plainPath = buildPlainPage(folder);
    const apiPath = join(DIST_DIR, "api.html");
    const size = (path: string) => {
      const bytes = readFileSync(path);
      return { raw: bytes.length, gzip: gzipSync(bytes).length };
    };
    const [apiSize, plainSize] = [size(apiPath), size(plainPath)];

    const rows: string[][] = [
      [
        "size",
        kib(apiSize.raw),
        kib(plainSize.raw),
        ratio(apiSize.raw / plainSize.raw),
        `+${kib(apiSize.raw - plainSize.raw)}`,
      ],
      [
        "size, gzip",
        kib(apiSize.gzip),
        kib(plainSize.gzip),
        ratio(apiSize.gzip / plainSize.gzip),
        `+${kib(apiSize.gzip - plainSize.gzip)}`,
      ],
    ];

    if (hasChromium) {
      const operations = expectedOperations(readDistJson("openapi.json"));
      const last = operations[operations.length - 1];
      if (!last) throw new Error("openapi.json has no operations");
      const [dist, peer] = [await serveDirectory(DIST_DIR), await serveDirectory(folder)];
      try {
        const { routes, times } = await measureSideBySide(
          { label: "api.html", url: `${dist.url}api.html` },
          { label: "plain", url: `${peer.url}plain.html` },
          last,
        );
        for (const [key, name] of [
          ["hydrated", "Redoc hydrated (sidebar answers clicks)"],
          ["lastOperation", `17th operation (${last.operationId}) visible, opened by its link`],
        ] as const) {
          const ours = times[0].map((t) => t[key]);
          const theirs = times[1].map((t) => t[key]);
          const pairs = ours.map((value, i) => value / (theirs[i] ?? Number.NaN));
          rows.push([
            `${name}, median of ${PAGE_LOADS}`,
            spread(ours),
            spread(theirs),
            ratio(median(ours) / median(theirs)),
            `median of pair ratios ${ratio(median(pairs))}`,
          ]);
        }
        console.log(`Routes of the 17th operation: ${routes.join(" (api.html), ")} (plain)\n`);
      } finally {
        await dist.close();
        await peer.close();
      }
    } else {
      console.warn(`[@marketapi/docs bench] no Chromium at ${CHROMIUM_PATH}: page-load figures skipped.`);
    }
    console.log(
      table(["api.html against a plain page", "api.html", "plain build-docs", "ratio", "note"], rows),
    );

    const others = readdirSync(DIST_DIR)
      .filter((name) => name.endsWith(".html") || name.endsWith(".json") || name.endsWith(".yaml"))
      .sort()
      .map((file) => {
        const { raw, gzip } = size(join(DIST_DIR, file));
        return [file, kib(raw), kib(gzip)];
      });
    const builds = measureBuilds();
    others.push([
      `build time, median of ${BUILD_RUNS} (\`tsx src/build-command.ts\`)`,
      ms(median(builds)),
      `runs: ${builds.map(ms).join(", ")}`,
    ]);
    console.log(`\n${table(["dist/ file", "size", "gzip"], others)}`);
    console.log(
      `\nNode ${process.version}, ${process.platform}/${process.arch}, Chromium at ${CHROMIUM_PATH}.`,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

await main();
