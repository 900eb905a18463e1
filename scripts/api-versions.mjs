// The API's released versions (specs/releases/<version>/spot-api.openapi.yaml) against specs/.
//
//   node scripts/api-versions.mjs check            the gate `npm test` runs: info.version is semver,
//                                                  not lower than the last release, and a breaking
//                                                  change since that release comes with a major bump
//   node scripts/api-versions.mjs check --release  also: specs/ holds no unreleased change (run by
//                                                  `npm run release` when no changeset is pending)
//   node scripts/api-versions.mjs check --since-commit --seed-facts
//                                                  `npm run api:check`, the maintainer's loop: also
//                                                  the changes since the last commit (git HEAD), and
//                                                  the source document's facts the spec must keep
//                                                  (packages/spec/test/support/seed-facts.ts)
//   node scripts/api-versions.mjs record           at a release: the bump must fit the changes; then
//                                                  specs/ is recorded as a release and the changes
//                                                  go into @marketapi/spec's CHANGELOG.md
//
// `--root DIR` works on another checkout (the gate's own test runs it on a scratch repository).
// It runs on the packages' TypeScript sources (scripts/source-imports/register.mjs), so it needs
// no build and answers in about a second of CPU after any edit of specs/.
// Exit codes: 0 fine, 1 the gate refuses (the message says what broke and how to proceed), 2 a
// document could not be read.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import {
  diffDocuments,
  gate,
  loadSpec,
  readReleases,
  renderMarkdown,
  renderText,
  SpecError,
  specFromText,
} from "@marketapi/diff";
import { root as repositoryRoot } from "./workspace-packages.mjs";

const SPEC = "spot-api.openapi.yaml";

const { values, positionals } = parseArgs({
  options: {
    root: { type: "string" },
    release: { type: "boolean", default: false },
    "since-commit": { type: "boolean", default: false },
    "seed-facts": { type: "boolean", default: false },
  },
  allowPositionals: true,
});
const root = values.root ?? repositoryRoot;
const command = positionals[0] ?? "check";
const say = (/** @type {string} */ line) => console.log(`api versions: ${line}`);

/** Paths in messages are relative to the repository, as a reader finds them. */
const here = (/** @type {string} */ path) => relative(process.cwd(), path) || ".";

async function main() {
  const releasesDir = join(root, "specs", "releases");
  const currentPath = join(root, "specs", SPEC);
  // Without the folder the gate would compare with nothing and pass; an empty one (before the
  // first release) is a statement that nothing was released yet.
  if (!existsSync(releasesDir)) {
    return refuse(
      `${here(releasesDir)} is missing, so there is no release to compare ${here(currentPath)} with; it holds one folder per released version (an empty folder before the first release)`,
    );
  }
  const releases = readReleases(here(releasesDir), SPEC);
  const current = loadSpec(here(currentPath));
  if (command === "check") {
    const gateStatus = check(releases, current);
    if (values["since-commit"]) sinceCommit(currentPath, current);
    const factsStatus = values["seed-facts"] ? await seedFacts(current) : 0;
    return Math.max(gateStatus, factsStatus);
  }
  if (command === "record") return record(releases, current, releasesDir, currentPath);
  console.error(`api versions: unknown command "${command}"; expected check or record`);
  return 2;
}

/**
 * @typedef {ReturnType<typeof readReleases>} Releases
 * @typedef {ReturnType<typeof loadSpec>} Spec
 */

/**
 * @param {Releases} releases
 * @param {Spec} current
 */
function check(releases, current) {
  const verdict = gate(releases, current);
  if (!verdict.ok) return refuse(verdict.message);
  if (values.release && verdict.changes.length > 0) {
    return refuse(
      `${current.source} has API changes the last release (${releases.at(-1)?.version ?? "none recorded yet"}) does not: add a changeset for @marketapi/spec (\`npx changeset\`) so they are released with a new package version, then run \`npm run release\` again`,
    );
  }
  say(verdict.message);
  return 0;
}

/**
 * @param {Releases} releases
 * @param {Spec} current
 * @param {string} releasesDir
 * @param {string} currentPath
 */
function record(releases, current, releasesDir, currentPath) {
  const verdict = gate(releases, current, { release: true });
  if (!verdict.ok) return refuse(verdict.message);
  const last = releases.at(-1);
  const version = String(current.document.info.version);
  if (last && verdict.changes.length === 0) {
    say(`specs/ is the released API ${last.version}; nothing to record`);
    return 0;
  }
  const folder = join(releasesDir, version);
  mkdirSync(folder, { recursive: true });
  copyFileSync(currentPath, join(folder, SPEC));
  const heading = last
    ? `### API ${version} (changes since ${last.version})`
    : `### API ${version} (first recorded release)`;
  const body = last
    ? renderMarkdown({
        old: { source: last.spec.source, version: last.version },
        new: { source: current.source, version },
        changes: verdict.changes.filter((c) => c.kind !== "api-version"),
      }).replace(/^### /gm, "#### ")
    : "The first released version of the API.\n";
  addToChangelog(join(root, "packages", "spec", "CHANGELOG.md"), `${heading}\n\n${body}`);
  say(`recorded API ${version} in ${here(folder)} and in packages/spec/CHANGELOG.md`);
  return 0;
}

/**
 * What changed since the last commit: the file as git's HEAD has it against the working copy.
 * Where there is no such commit (no git, a new file), it says so and judges nothing.
 * @param {string} currentPath
 * @param {Spec} current
 */
function sinceCommit(currentPath, current) {
  const relativePath = relative(root, currentPath);
  let text;
  try {
    text = execFileSync("git", ["show", `HEAD:${relativePath}`], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const reason = String(/** @type {{ stderr?: string }} */ (error).stderr ?? error)
      .trim()
      .split("\n")[0];
    say(`since the last commit: not known (git show HEAD:${relativePath}: ${reason})`);
    return;
  }
  const committed = specFromText(`HEAD:${relativePath}`, text);
  const changes = diffDocuments(committed.document, current.document);
  const rendered = renderText({
    old: { source: committed.source, version: String(committed.document.info.version) },
    new: { source: current.source, version: String(current.document.info.version) },
    changes,
  }).trimEnd();
  const [first, ...rest] = rendered.split("\n");
  say(`since the last commit: ${changes.length === 0 ? "no changes" : first}`);
  for (const line of rest) console.log(line === "" ? "" : `  ${line}`);
}

/**
 * The source document's facts (operations, parameters, types, required flags, defaults) that the
 * spec must keep: the comparison of packages/spec's fidelity test, run here so that an edit that
 * the gate allows but the source forbids is named now, not when the package tests run.
 * @param {Spec} current
 */
async function seedFacts(current) {
  // A TypeScript module, loaded through scripts/source-imports (tsx), which api:check registers.
  const facts = new URL("../packages/spec/test/support/seed-facts.ts", import.meta.url).href;
  /** @type {typeof import("../packages/spec/test/support/seed-facts.js")} */
  const { seedDifferences, differencesMessage } = await import(facts);
  const differences = seedDifferences(current.document);
  if (differences.length === 0) {
    say("the source document's facts (seed 000): kept");
    return 0;
  }
  console.error(`api versions: ${differencesMessage(differences)}`);
  return 1;
}

/** Puts the section under the newest version heading (`changeset version` has just written it). */
/**
 * @param {string} path
 * @param {string} section
 */
function addToChangelog(path, section) {
  const text = readFileSync(path, "utf8");
  const heading = /^## .*$/m.exec(text);
  if (!heading)
    throw new Error(`${here(path)}: expected a "## <version>" heading to put the API changes under`);
  const at = heading.index + heading[0].length;
  writeFileSync(path, `${text.slice(0, at)}\n\n${section.trimEnd()}\n${text.slice(at)}`);
}

function refuse(/** @type {string} */ message) {
  console.error(`api versions: ${message}`);
  return 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof SpecError)) throw error;
  console.error(`api versions: ${error.message}`);
  process.exitCode = 2;
}
