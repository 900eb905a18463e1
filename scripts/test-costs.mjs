// What the test files of the last run cost (vitest.file-cost.ts writes one record a file into
// test-results/costs/ of each package and of the repository): the costliest files, each package's
// total, and the whole run's CPU time, which on a quiet 2-core machine bounds `npm test` from
// below at half of it. CPU time is the figure to compare while other work loads the machine;
// wall time is only meaningful on a quiet one.
//
//   node scripts/test-costs.mjs [--top N] [--json]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { root, workspacePackages } from "./workspace-packages.mjs";

const { values } = parseArgs({
  options: { top: { type: "string", default: "25" }, json: { type: "boolean", default: false } },
});

/** @typedef {{ owner: string, file: string, wallMs: number, cpuMs?: number }} Cost */

/** @returns {Cost[]} */
function costsIn(/** @type {string} */ dir, /** @type {string} */ owner) {
  const folder = join(dir, "test-results", "costs");
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .map((name) => ({ owner, ...JSON.parse(readFileSync(join(folder, name), "utf8")) }));
}

const costs = [
  ...workspacePackages().flatMap(({ dir, manifest }) => costsIn(dir, manifest.name)),
  ...costsIn(root, "repository (scripts/test)"),
];
if (costs.length === 0) {
  console.error(
    `test costs: no record under ${relative(process.cwd(), root) || "."}/**/test-results/costs: run the tests first`,
  );
  process.exit(1);
}

const seconds = (/** @type {number | undefined} */ ms) =>
  ms === undefined ? "    -" : (ms / 1000).toFixed(1).padStart(5);
const sum = (/** @type {Cost[]} */ list, /** @type {"wallMs" | "cpuMs"} */ key) =>
  list.reduce((total, cost) => total + (cost[key] ?? 0), 0);
const byCpu = [...costs].sort((a, b) => (b.cpuMs ?? b.wallMs) - (a.cpuMs ?? a.wallMs));
const owners = [...new Set(costs.map((c) => c.owner))].map((owner) => {
  const mine = costs.filter((c) => c.owner === owner);
  return { owner, files: mine.length, cpuMs: sum(mine, "cpuMs"), wallMs: sum(mine, "wallMs") };
});
const total = { files: costs.length, cpuMs: sum(costs, "cpuMs"), wallMs: sum(costs, "wallMs") };

if (values.json) {
  console.log(JSON.stringify({ total, owners, files: byCpu }, null, 2));
  process.exit(0);
}
const top = Number(values.top);
console.log(`the ${Math.min(top, costs.length)} costliest test files (CPU s incl. child processes, wall s):`);
console.log("  cpu s  wall s  file");
for (const cost of byCpu.slice(0, top))
  console.log(`  ${seconds(cost.cpuMs)}  ${seconds(cost.wallMs)}   ${cost.owner}: ${cost.file}`);
console.log("\nby package:");
for (const o of owners.sort((a, b) => b.cpuMs - a.cpuMs))
  console.log(`  ${seconds(o.cpuMs)}  ${seconds(o.wallMs)}   ${o.owner} (${o.files} files)`);
console.log(
  `\n${total.files} files: ${(total.cpuMs / 1000).toFixed(0)} s of CPU (at best ${(total.cpuMs / 2000).toFixed(0)} s on 2 cores), ${(total.wallMs / 1000).toFixed(0)} s of wall time summed over files`,
);
