// The README's test command. First the API version gate (scripts/api-versions.mjs check, seconds):
// a breaking change to specs/ without a major info.version bump stops the run there, with the
// gate's message, before the long package run (`--keep-going` runs the rest anyway). Then every
// package's tests and the repository's own tests (scripts/test: package imports, lockfile, release
// metadata, the release check on packed tarballs, the release against a local registry), side by
// side in one turbo run, which builds first; then the repository checks that are not tests:
// committed generated files match a fresh generation, and Biome is clean.
// Output stays short: turbo shows the logs of failing packages only, and the end is a line per
// package and check, then the summary line CI reads: "N passed, N failed".
//
// `--root DIR` runs the gate on another checkout's specs/ (the gate's test uses a scratch one).
// `--full` (`npm run test:full`) runs the big sets the default run samples, whole: every fault of
// the contract tester's mutation catalog (MUTATION_SAMPLE=all) and every entry and operation of
// the public-spec corpora (MARKETAPI_CORPUS_FULL=1). It is for before a release, not for CI.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { root as repositoryRoot, workspacePackages } from "./workspace-packages.mjs";

const { values } = parseArgs({
  options: {
    verbose: { type: "boolean", default: false },
    "keep-going": { type: "boolean", default: false },
    full: { type: "boolean", default: false },
    root: { type: "string" },
  },
});
const root = values.root ?? repositoryRoot;
// The test tasks see these through turbo.json's "env" of the test task (which keys its cache too).
if (values.full) Object.assign(process.env, { MUTATION_SAMPLE: "all", MARKETAPI_CORPUS_FULL: "1" });
const results = join(root, "test-results");
const run = (/** @type {string} */ command, /** @type {string[]} */ args, cwd = root) =>
  spawnSync(command, args, { cwd, stdio: "inherit" }).status === 0;
/** A tool the root package.json installs, run directly (not through npx, which adds npm's own chatter). */
const tool = (/** @type {string} */ name, /** @type {string[]} */ ...args) =>
  run(join(repositoryRoot, "node_modules", ".bin", name), args, repositoryRoot);

const GATE = "API version gate (specs/ against the last release in specs/releases)";

/** The gate runs on @marketapi/diff's sources (scripts/source-imports), so it waits for no build. */
function apiGate() {
  console.log(`test: ${GATE}`);
  return run("node", [
    "--import",
    join(repositoryRoot, "scripts", "source-imports", "register.mjs"),
    join(repositoryRoot, "scripts", "api-versions.mjs"),
    "check",
    "--root",
    root,
  ]);
}

// Reports of an earlier run must not stand in for a package whose tests do not run this time.
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
for (const { dir } of workspacePackages(root)) {
  rmSync(join(dir, "test-results", "vitest.json"), { force: true });
  rmSync(join(dir, "test-results", "costs"), { recursive: true, force: true });
}

const gatePassed = apiGate();
if (!gatePassed) {
  console.error(
    [
      "",
      "test: FAILED: the API version gate (above). specs/ has a change its info.version does not allow.",
      "test: fix specs/spot-api.openapi.yaml as the message says, then `npm run api:check` (seconds) until it passes.",
      values["keep-going"]
        ? "test: --keep-going: running the other tests anyway; some may fail for the same change."
        : "test: stopped before the package tests; `npm test -- --keep-going` runs them anyway.",
      "",
    ].join("\n"),
  );
  if (!values["keep-going"]) {
    // The line CI reads, as scripts/test-summary.mjs ends a full run.
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
}

// The repository tests run as turbo's root task test:repository (root package.json; turbo.json
// starts it once every package is built), beside the package tests rather than after them: most
// of their time is spent waiting for npm, git and tsc, which left a core idle for minutes. turbo
// exits non-zero when either failed; the summary names which.
const turboStarted = Date.now();
const testsPassed = tool(
  "turbo",
  "run",
  "test",
  "test:repository",
  "--continue",
  "--summarize",
  `--output-logs=${values.verbose ? "full" : "errors-only"}`,
);
keepTurboRun(turboStarted);
/**
 * Turbo's summary of the run just made (each task's exit code) goes beside the reports, so that the
 * summary can count a package whose tests all passed but whose run failed (an unhandled error).
 */
function keepTurboRun(/** @type {number} */ since) {
  const runs = join(repositoryRoot, ".turbo", "runs");
  if (!existsSync(runs)) return;
  const newest = readdirSync(runs)
    .filter((name) => name.endsWith(".json"))
    .map((name) => ({ path: join(runs, name), at: statSync(join(runs, name)).mtimeMs }))
    .filter((file) => file.at >= since)
    .sort((a, b) => b.at - a.at)[0];
  if (!newest) return;
  // Moved, not copied: turbo writes one per run, and .turbo/runs would only grow.
  copyFileSync(newest.path, join(results, "turbo-run.json"));
  rmSync(newest.path);
}

const checks = [
  { name: GATE, ok: gatePassed },
  { name: "generated files match the commit", ok: run("node", ["scripts/check-generated-drift.mjs"]) },
  { name: "biome (format and lint)", ok: tool("biome", "ci", "--reporter=summary", ".") },
];
writeFileSync(join(results, "repo-checks.json"), `${JSON.stringify(checks, null, 2)}\n`);
const summaryPassed = run("node", ["scripts/test-summary.mjs"]);
if (!gatePassed)
  console.error("test: the API version gate failed; see its message at the top of this output");
process.exit(testsPassed && summaryPassed && checks.every((c) => c.ok) ? 0 : 1);
