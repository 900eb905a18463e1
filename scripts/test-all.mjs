// The README's test command: every package's tests (through turbo), then the repository checks
// that belong to no package: committed generated files match a fresh generation, and Biome is
// clean. Each repository check is recorded in test-results/repo-checks.json for the CI summary.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: "inherit" }).status === 0;

const packagesPassed = run("npx", ["--no-install", "turbo", "run", "test", "--continue"]);
const checks = [
  { name: "generated files match the commit", ok: run("node", ["scripts/check-generated-drift.mjs"]) },
  { name: "biome (format and lint)", ok: run("npx", ["--no-install", "biome", "ci", "."]) },
];
mkdirSync(join(root, "test-results"), { recursive: true });
writeFileSync(join(root, "test-results", "repo-checks.json"), `${JSON.stringify(checks, null, 2)}\n`);
for (const check of checks) console.log(`${check.ok ? "ok    " : "FAILED"} ${check.name}`);
process.exit(packagesPassed && checks.every((c) => c.ok) ? 0 : 1);
