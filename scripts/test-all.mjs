// The README's test command: every package's tests (through turbo), then the repository's own
// tests (scripts/test: package imports, lockfile, the release check on packed tarballs), then the
// repository checks that are not tests: committed generated files match a fresh generation, and
// Biome is clean. Ends with the summary line CI reads: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const results = join(root, "test-results");
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: "inherit" }).status === 0;

rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });

const packagesPassed = run("npx", ["--no-install", "turbo", "run", "test", "--continue"]);
const repositoryPassed = run("npx", [
  "--no-install",
  "vitest",
  "run",
  "--config",
  "scripts/vitest.config.ts",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${join(results, "repository.vitest.json")}`,
]);
const checks = [
  { name: "generated files match the commit", ok: run("node", ["scripts/check-generated-drift.mjs"]) },
  { name: "biome (format and lint)", ok: run("npx", ["--no-install", "biome", "ci", "."]) },
];
writeFileSync(join(results, "repo-checks.json"), `${JSON.stringify(checks, null, 2)}\n`);
for (const check of checks) console.log(`${check.ok ? "ok    " : "FAILED"} ${check.name}`);
const summaryPassed = run("node", ["scripts/test-summary.mjs"]);
process.exit(packagesPassed && repositoryPassed && summaryPassed && checks.every((c) => c.ok) ? 0 : 1);
