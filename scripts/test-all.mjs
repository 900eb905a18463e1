// The README's test command: every package's tests (through turbo, which builds first), then the
// repository's own tests (scripts/test: package imports, lockfile, release metadata, the release
// check on packed tarballs, the release against a local registry), then the repository checks that
// are not tests: committed generated files match a fresh generation, and Biome is clean.
// Output stays short: turbo shows the logs of failing packages only, and the end is a line per
// package and check, then the summary line CI reads: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, workspacePackages } from "./workspace-packages.mjs";

const results = join(root, "test-results");
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: "inherit" }).status === 0;
/** A tool the root package.json installs, run directly (not through npx, which adds npm's own chatter). */
const tool = (name, ...args) => run(join(root, "node_modules", ".bin", name), args);

// Reports of an earlier run must not stand in for a package whose tests do not run this time.
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
for (const { dir } of workspacePackages()) rmSync(join(dir, "test-results", "vitest.json"), { force: true });

const verbose = process.argv.includes("--verbose");
const packagesPassed = tool(
  "turbo",
  "run",
  "test",
  "--continue",
  `--output-logs=${verbose ? "full" : "errors-only"}`,
);
console.log("test: repository tests (scripts/test)");
const repositoryPassed = tool(
  "vitest",
  "run",
  "--config",
  "scripts/vitest.config.ts",
  `--reporter=${verbose ? "default" : "dot"}`,
  "--reporter=json",
  `--outputFile.json=${join(results, "repository.vitest.json")}`,
);
const checks = [
  {
    name: "API version gate (specs/ against the last release in specs/releases)",
    ok: run("node", ["scripts/api-versions.mjs", "check"]),
  },
  { name: "generated files match the commit", ok: run("node", ["scripts/check-generated-drift.mjs"]) },
  { name: "biome (format and lint)", ok: tool("biome", "ci", "--reporter=summary", ".") },
];
writeFileSync(join(results, "repo-checks.json"), `${JSON.stringify(checks, null, 2)}\n`);
const summaryPassed = run("node", ["scripts/test-summary.mjs"]);
process.exit(packagesPassed && repositoryPassed && summaryPassed && checks.every((c) => c.ok) ? 0 : 1);
