// Adds up the vitest JSON reports of every workspace package (and the repository checks)
// into the plain "N passed, N failed" line that CI reads. A package with a test script but no
// report counts as one failure: its runner crashed or never started.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
for (const dir of readdirSync(join(root, "packages"))) {
  const pkgPath = join(root, "packages", dir, "package.json");
  if (!existsSync(pkgPath)) continue;
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
  if (!pkg.scripts?.test) continue;
  const report = join(root, "packages", dir, "test-results", "vitest.json");
  if (!existsSync(report)) {
    console.log(`summary: ${pkg.name} wrote no test report (its test run did not finish)`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(report, "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + r.numTodoTests;
  if (r.numFailedTestSuites > 0 && r.numFailedTests === 0) failed += r.numFailedTestSuites;
}
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
