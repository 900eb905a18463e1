// Adds up the vitest JSON reports of every workspace package, the repository's own tests and the
// repository checks into the plain "N passed, N failed" line that CI reads. A package with a test
// script but no report counts as one failure: its runner crashed or never started.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root, workspacePackages } from "./workspace-packages.mjs";

let passed = 0;
let failed = 0;
let skipped = 0;

function addReport(label, path) {
  if (!existsSync(path)) {
    console.log(`summary: ${label} wrote no test report (its test run did not finish)`);
    failed += 1;
    return;
  }
  const r = JSON.parse(readFileSync(path, "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + r.numTodoTests;
  if (r.numFailedTestSuites > 0 && r.numFailedTests === 0) failed += r.numFailedTestSuites;
}

for (const { dir, manifest } of workspacePackages()) {
  if (manifest.scripts?.test) addReport(manifest.name, join(dir, "test-results", "vitest.json"));
}
addReport("the repository tests (scripts/test)", join(root, "test-results", "repository.vitest.json"));
const repoChecks = join(root, "test-results", "repo-checks.json");
if (existsSync(repoChecks)) {
  for (const check of JSON.parse(readFileSync(repoChecks, "utf8"))) {
    if (check.ok) passed += 1;
    else failed += 1;
  }
} else {
  console.log("summary: the repository checks (generated-code drift, Biome) did not run");
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
