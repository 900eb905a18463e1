// npm run release: versions and publishes the public packages to the configured registry (npm's
// `registry`, or `@marketapi:registry` in an .npmrc).
//
// 1. When changesets are pending (.changeset/*.md): `changeset version` bumps the versions and the
//    ranges of internal dependencies and writes the CHANGELOG.md entries; the lockfile follows;
//    `npm run build` rebuilds what that changed (generated files name the codegen version).
//    The API version in specs/ is recorded in specs/releases/ with its changes in the spec's
//    CHANGELOG.md (scripts/api-versions.mjs record); without changesets, specs/ must be released.
// 2. Every public package's dist/ must be a build of its current sources (scripts/build-stamp.mjs).
//    If one is missing or stale, nothing is published.
// 3. `changeset publish` publishes each package whose version the registry does not have yet; the
//    `prepack` of each checks its dist/ once more, so a direct `npm publish` is guarded too.
// Then commit what changed (versions, changelogs, lockfile, regenerated files) and push the tags.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { staleness } from "./build-stamp.mjs";
import { publicPackages, root } from "./workspace-packages.mjs";

const step = (/** @type {string} */ message) => console.log(`release: ${message}`);

function run(/** @type {string} */ command, /** @type {string[]} */ args) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(
      `release: \`${[command, ...args].join(" ")}\` failed (exit ${result.status ?? result.signal}); stopped`,
    );
    process.exit(1);
  }
}

/** Refuses, publishing nothing, unless every public package's dist/ is a build of its sources. */
function requireFreshBuilds() {
  const problems = publicPackages()
    .map((p) => staleness(p.dir))
    .filter(Boolean);
  if (problems.length > 0) {
    console.error(`release: nothing was published, because:\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
}

const pending = readdirSync(join(root, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
if (pending.length > 0) {
  requireFreshBuilds();
  step(`${pending.length} changeset(s) pending: versioning`);
  run("npx", ["--no-install", "changeset", "version"]);
  run("npm", ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"]);
  step("recording the API version (specs/releases) and its changes (packages/spec/CHANGELOG.md)");
  run("node", ["scripts/api-versions.mjs", "record"]);
  step("rebuilding what the new versions changed");
  run("npm", ["run", "build", "--silent"]);
} else {
  step("no changesets pending: publishing the current versions");
  run("node", ["scripts/api-versions.mjs", "check", "--release"]);
}
requireFreshBuilds();
run("npx", ["--no-install", "changeset", "publish"]);
step("done; commit the version changes and changelogs, and push the tags (git push --follow-tags)");
