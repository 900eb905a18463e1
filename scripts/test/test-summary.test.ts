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
