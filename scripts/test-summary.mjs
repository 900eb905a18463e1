// Adds up the vitest JSON reports of every workspace package, the repository's own tests and the
// repository checks: a line for each, then the plain "N passed, N failed" line that CI reads. A
// package with a test script but no report counts as one failure: its runner crashed or never ran.
// `--root DIR` reads the reports of another checkout (its test runs it on a scratch one).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { root as repositoryRoot, workspacePackages } from "./workspace-packages.mjs";

const root = parseArgs({ options: { root: { type: "string" } } }).values.root ?? repositoryRoot;

let passed = 0;
let failed = 0;
let skipped = 0;
const lines = [];

function addReport(/** @type {string} */ label, /** @type {string} */ path) {
  if (!existsSync(path)) {
    lines.push([label, "no test report: its test run did not finish"]);
    failed += 1;
    return;
  }
  const r = JSON.parse(readFileSync(path, "utf8"));
  const crashedFiles = r.numFailedTestSuites > 0 && r.numFailedTests === 0 ? r.numFailedTestSuites : 0;
  const own = {
    passed: r.numPassedTests,
    failed: r.numFailedTests + crashedFiles,
    skipped: r.numPendingTests + r.numTodoTests,
  };
  if (own.passed + own.failed === 0) {
    lines.push([label, "ran no test: its test files define none, or none were found"]);
    failed += 1;
    return;
  }
  passed += own.passed;
  failed += own.failed;
  skipped += own.skipped;
  lines.push([
    label,
    `${own.passed} passed, ${own.failed} failed${own.skipped ? `, ${own.skipped} skipped` : ""}`,
  ]);
}

for (const { dir, manifest } of workspacePackages(root)) {
  if (manifest.scripts?.test) addReport(manifest.name, join(dir, "test-results", "vitest.json"));
}
addReport("repository tests (scripts/test)", join(root, "test-results", "repository.vitest.json"));
const repoChecks = join(root, "test-results", "repo-checks.json");
const checks = existsSync(repoChecks) ? JSON.parse(readFileSync(repoChecks, "utf8")) : [];
if (checks.length > 0) {
  for (const check of checks) {
    lines.push([check.name, check.ok ? "ok" : "FAILED"]);
    if (check.ok) passed += 1;
    else failed += 1;
  }
} else {
  lines.push(["repository checks (drift, Biome)", "did not run"]);
  failed += 1;
}
const width = Math.max(...lines.map(([label]) => label.length));
for (const [label, result] of lines) console.log(`${label.padEnd(width)}  ${result}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
