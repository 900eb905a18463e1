// Adds up the vitest JSON reports of every workspace package, the repository's own tests and the
// repository checks: a line for each, then the plain "N passed, N failed" line that CI reads. A
// package with a test script but no report counts as one failure: its runner crashed or never ran.
// `--root DIR` reads the reports of another checkout (its test runs it on a scratch one).
//
// A failure is one of four kinds, and the summary says which: a failed test; a test file that
// failed outside its tests (it could not be imported, or a hook such as beforeAll threw or timed
// out: vitest then reports the file's tests as skipped, not failed); a package run that failed
// with nothing failed in its report (an unhandled error or rejection, which vitest's JSON report
// leaves out: turbo's summary of the run, test-results/turbo-run.json, gives each task's exit
// code); a repository check.
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { root as repositoryRoot, workspacePackages } from "./workspace-packages.mjs";

const root = parseArgs({ options: { root: { type: "string" } } }).values.root ?? repositoryRoot;

let passed = 0;
let skipped = 0;
const failed = { tests: 0, files: 0, reports: 0, runs: 0, checks: 0 };
/** Each test task's exit code, by turbo's task id (`@marketapi/contract#test`), when turbo's summary is there. */
const exitCodes = turboExitCodes(join(root, "test-results", "turbo-run.json"));
/** @type {string[]} */
const runFailures = [];

function turboExitCodes(/** @type {string} */ path) {
  if (!existsSync(path)) return new Map();
  /** @type {{ tasks?: { taskId: string, execution?: { exitCode?: number | null } }[] }} */
  const summary = JSON.parse(readFileSync(path, "utf8"));
  return new Map((summary.tasks ?? []).map((task) => [task.taskId, task.execution?.exitCode]));
}
/** @type {[string, string][]} */
const lines = [];
/** @type {string[]} */
const fileFailures = [];
/** @type {string[]} */
const testFailures = [];

/**
 * @typedef {{ status: string, fullName?: string, title?: string, failureMessages?: string[] }} AssertionResult
 * @typedef {{ name: string, status: string, message?: string, assertionResults?: AssertionResult[] }} FileResult
 * @typedef {{ numPassedTests: number, numFailedTests: number, numPendingTests: number, numTodoTests: number,
 *   numFailedTestSuites?: number, success?: boolean, testResults?: FileResult[] }} Report
 */

/** Each failed test, with its file and the first line of why: CI keeps only the summary's tail. */
function failedTests(/** @type {Report} */ r, /** @type {string} */ label) {
  return (r.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? [])
      .filter((a) => a.status === "failed")
      .map((a) => {
        const why = (a.failureMessages?.[0] ?? "").split("\n", 1).join("").slice(0, 300);
        return `${label}: ${relative(root, file.name)} > ${a.fullName ?? a.title}: ${why}`;
      }),
  );
}

/** Test files that failed with no failed test in them, each with why, as far as the report says. */
function filesFailedOutsideTests(/** @type {Report} */ r, /** @type {string} */ label) {
  const files = (r.testResults ?? []).filter(
    (file) => file.status === "failed" && !(file.assertionResults ?? []).some((a) => a.status === "failed"),
  );
  return files.map((file) => {
    const notRun = (file.assertionResults ?? []).filter((a) => a.status !== "passed").length;
    const why = file.message
      ? file.message.split("\n")[0]
      : `a hook (beforeAll, afterAll, …) failed or timed out; ${notRun} of its tests did not run`;
    return `${label}: ${relative(root, file.name)}: ${why}`;
  });
}

function addReport(/** @type {string} */ label, /** @type {string} */ path, /** @type {string} */ taskId) {
  if (!existsSync(path)) {
    lines.push([label, "no test report: its test run did not finish"]);
    failed.reports += 1;
    return;
  }
  /** @type {Report} */
  const r = JSON.parse(readFileSync(path, "utf8"));
  const outside = filesFailedOutsideTests(r, label);
  // An old report without per-file results: its failed suites stand in for the files.
  const outsideCount =
    r.testResults === undefined && r.numFailedTests === 0 ? (r.numFailedTestSuites ?? 0) : outside.length;
  if (r.numPassedTests + r.numFailedTests + outsideCount === 0) {
    lines.push([label, "ran no test: its test files define none, or none were found"]);
    failed.reports += 1;
    return;
  }
  passed += r.numPassedTests;
  failed.tests += r.numFailedTests;
  failed.files += outsideCount;
  testFailures.push(...failedTests(r, label));
  fileFailures.push(...outside);
  const own = r.numPendingTests + r.numTodoTests;
  skipped += own;
  const filesPart = outsideCount > 0 ? `, ${outsideCount} test file(s) failed outside their tests` : "";
  const exitCode = exitCodes.get(taskId);
  const unexplained = r.numFailedTests + outsideCount === 0 && typeof exitCode === "number" && exitCode !== 0;
  if (unexplained) {
    failed.runs += 1;
    runFailures.push(
      `${label}: its test run exited ${exitCode} with no failed test in its report: an error outside the tests (an unhandled error or rejection); its log above says which`,
    );
  }
  lines.push([
    label,
    `${r.numPassedTests} passed, ${r.numFailedTests} failed${filesPart}${own ? `, ${own} skipped` : ""}${unexplained ? `, its run failed (exit ${exitCode})` : ""}`,
  ]);
}

for (const { dir, manifest } of workspacePackages(root)) {
  if (manifest.scripts?.test)
    addReport(manifest.name, join(dir, "test-results", "vitest.json"), `${manifest.name}#test`);
}
addReport(
  "repository tests (scripts/test)",
  join(root, "test-results", "repository.vitest.json"),
  "//#test:repository",
);
const repoChecks = join(root, "test-results", "repo-checks.json");
const checks = existsSync(repoChecks) ? JSON.parse(readFileSync(repoChecks, "utf8")) : [];
if (checks.length > 0) {
  for (const check of checks) {
    lines.push([check.name, check.ok ? "ok" : "FAILED"]);
    if (check.ok) passed += 1;
    else failed.checks += 1;
  }
} else {
  lines.push(["repository checks (drift, Biome)", "did not run"]);
  failed.checks += 1;
}
const width = Math.max(...lines.map(([label]) => label.length));
for (const [label, result] of lines) console.log(`${label.padEnd(width)}  ${result}`);
const failures = failed.tests + failed.files + failed.reports + failed.runs + failed.checks;
if (failures > 0) {
  console.log("");
  console.log(
    `failed: ${failed.tests} test(s); ${failed.files} test file(s) outside their tests (import, hook or hook timeout); ${failed.reports} package run(s) with no usable report; ${failed.runs} run(s) failed with every test passed; ${failed.checks} repository check(s)`,
  );
  for (const line of [...testFailures, ...fileFailures, ...runFailures]) console.log(`  ${line}`);
}
console.log(`${passed} passed, ${failures} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failures > 0 || passed === 0 ? 1 : 0);
