// Adds up the vitest JSON reports of every workspace package, the repository's own tests and the
// repository checks: a line for each, then the plain "N passed, N failed" line that CI reads. A
// package with a test script but no report counts as one failure: its runner crashed or never ran.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root, workspacePackages } from "./workspace-packages.mjs";

let passed = 0;
let failed = 0;
let skipped = 0;
const lines = [];

function addReport(label, path) {
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
  passed += own.passed;
  failed += own.failed;
  skipped += own.skipped;
  lines.push([
    label,
    `${own.passed} passed, ${own.failed} failed${own.skipped ? `, ${own.skipped} skipped` : ""}`,
  ]);
}

for (const { dir, manifest } of workspacePackages()) {
  if (manifest.scripts?.test) addReport(manifest.name, join(dir, "test-results", "vitest.json"));
}
addReport("repository tests (scripts/test)", join(root, "test-results", "repository.vitest.json"));
const repoChecks = join(root, "test-results", "repo-checks.json");
if (existsSync(repoChecks)) {
  for (const check of JSON.parse(readFileSync(repoChecks, "utf8"))) {
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
