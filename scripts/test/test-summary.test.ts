// The summary line of `npm test` (scripts/test-summary.mjs), on the reports of a scratch checkout:
// it adds them up, and fails on a missing report, a report with no test, a failed test, a failed
// repository check, and repository checks that did not run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../release-check.mjs";
import { root } from "../workspace-packages.mjs";

let repo: string;

const report = (passed: number, failed = 0) =>
  JSON.stringify({
    numPassedTests: passed,
    numFailedTests: failed,
    numFailedTestSuites: failed > 0 ? 1 : 0,
    numPendingTests: 0,
    numTodoTests: 0,
  });

function write(path: string, text: string) {
  mkdirSync(join(repo, path, ".."), { recursive: true });
  writeFileSync(join(repo, path), text);
}

const summary = () =>
  run(process.execPath, [join(root, "scripts", "test-summary.mjs"), "--root", repo], { cwd: repo });

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "marketapi-summary-"));
  write("package.json", JSON.stringify({ name: "scratch", private: true, workspaces: ["packages/*"] }));
  for (const name of ["one", "two"]) {
    write(`packages/${name}/package.json`, JSON.stringify({ name, scripts: { test: "vitest run" } }));
    write(`packages/${name}/test-results/vitest.json`, report(3));
  }
  write("test-results/repository.vitest.json", report(2));
  write("test-results/repo-checks.json", JSON.stringify([{ name: "drift", ok: true }]));
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe("the test summary", () => {
  it("adds up every report and check", async () => {
    const result = await summary();
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe("9 passed, 0 failed");
  });

  it("counts a run that failed by its failed test once", async () => {
    write("packages/one/test-results/vitest.json", report(2, 1));
    write(
      "test-results/turbo-run.json",
      JSON.stringify({ tasks: [{ taskId: "one#test", execution: { exitCode: 1 } }] }),
    );
    const result = await summary();
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe("8 passed, 1 failed");
  });

  it.each([
    {
      given: "a package without a report",
      spoil: () => rmSync(join(repo, "packages/two/test-results/vitest.json")),
      want: "no test report",
    },
    {
      given: "a report with no test",
      spoil: () => write("packages/one/test-results/vitest.json", report(0)),
      want: "ran no test",
    },
    {
      given: "a failed test",
      spoil: () => write("packages/one/test-results/vitest.json", report(2, 1)),
      want: "2 passed, 1 failed",
    },
    {
      given: "a test file whose beforeAll hook timed out (its tests reported skipped, none failed)",
      spoil: () =>
        write(
          "packages/one/test-results/vitest.json",
          JSON.stringify({
            ...JSON.parse(report(2)),
            numFailedTestSuites: 1,
            numPendingTests: 3,
            testResults: [
              { name: join(repo, "packages/one/test/a.test.ts"), status: "passed", assertionResults: [] },
              {
                name: join(repo, "packages/one/test/proxy.test.ts"),
                status: "failed",
                message: "",
                assertionResults: [{ status: "skipped" }, { status: "skipped" }, { status: "skipped" }],
              },
            ],
          }),
        ),
      want: "failed: 0 test(s); 1 test file(s) outside their tests (import, hook or hook timeout); 0 package run(s) with no usable report; 0 run(s) failed with every test passed; 0 repository check(s)\n  one: packages/one/test/proxy.test.ts: a hook (beforeAll, afterAll, …) failed or timed out; 3 of its tests did not run\n8 passed, 1 failed, 3 skipped",
    },
    {
      given:
        "a package whose run failed with every test passed (an unhandled rejection: vitest's report says success)",
      spoil: () =>
        write(
          "test-results/turbo-run.json",
          JSON.stringify({
            tasks: [
              { taskId: "one#test", execution: { exitCode: 0 } },
              { taskId: "two#test", execution: { exitCode: 1 } },
              { taskId: "//#test:repository", execution: { exitCode: 0 } },
            ],
          }),
        ),
      want: "two: its test run exited 1 with no failed test in its report: an error outside the tests (an unhandled error or rejection); its log above says which\n9 passed, 1 failed",
    },
    {
      given: "the repository tests' run failed with every test passed",
      spoil: () =>
        write(
          "test-results/turbo-run.json",
          JSON.stringify({ tasks: [{ taskId: "//#test:repository", execution: { exitCode: 1 } }] }),
        ),
      want: "repository tests (scripts/test): its test run exited 1",
    },
    {
      given: "a test file that cannot be imported",
      spoil: () =>
        write(
          "packages/two/test-results/vitest.json",
          JSON.stringify({
            ...JSON.parse(report(3)),
            numFailedTestSuites: 1,
            testResults: [
              {
                name: join(repo, "packages/two/test/b.test.ts"),
                status: "failed",
                message: "Cannot find module './gone.js' imported from b.test.ts\nmore",
                assertionResults: [],
              },
            ],
          }),
        ),
      want: "two: packages/two/test/b.test.ts: Cannot find module './gone.js' imported from b.test.ts\n9 passed, 1 failed",
    },
    {
      given: "a failed test and a failed suite in the same report (the test is counted once)",
      spoil: () =>
        write(
          "packages/one/test-results/vitest.json",
          JSON.stringify({
            ...JSON.parse(report(2, 1)),
            numFailedTestSuites: 2,
            testResults: [
              {
                name: join(repo, "packages/one/test/a.test.ts"),
                status: "failed",
                assertionResults: [{ status: "passed" }, { status: "passed" }, { status: "failed" }],
              },
            ],
          }),
        ),
      want: "failed: 1 test(s); 0 test file(s) outside their tests",
    },
    {
      given: "a failed test with its name and message (CI keeps only the summary's tail)",
      spoil: () =>
        write(
          "packages/one/test-results/vitest.json",
          JSON.stringify({
            ...JSON.parse(report(2, 1)),
            testResults: [
              {
                name: join(repo, "packages/one/test/a.test.ts"),
                status: "failed",
                assertionResults: [
                  { status: "passed", fullName: "rules hold" },
                  {
                    status: "failed",
                    fullName: "the book > moves",
                    failureMessages: ["AssertionError: expected 1 to be 2\n    at a.test.ts:3"],
                  },
                ],
              },
            ],
          }),
        ),
      want: "  one: packages/one/test/a.test.ts > the book > moves: AssertionError: expected 1 to be 2\n",
    },
    {
      given: "a failed check",
      spoil: () => write("test-results/repo-checks.json", JSON.stringify([{ name: "drift", ok: false }])),
      want: "FAILED",
    },
    {
      given: "an empty list of checks",
      spoil: () => write("test-results/repo-checks.json", "[]"),
      want: "did not run",
    },
    {
      given: "no list of checks",
      spoil: () => rmSync(join(repo, "test-results/repo-checks.json")),
      want: "did not run",
    },
  ])("fails on $given", async ({ spoil, want }) => {
    spoil();
    const result = await summary();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(want);
  });
});
