// Fails when regenerating changed a committed generated file: the build regenerates every
// package's src/generated folder from specs/, so any difference from git (a changed, added or
// deleted file) means the commit is stale.
//
//   node scripts/check-generated-drift.mjs [--root DIR]
//
// The folders are the workspace packages' src/generated folders, passed to git as literal paths:
// a wildcard pathspec such as `packages/*/src/generated` matches no file inside those folders, so
// git reported nothing and the check could not fail. It also fails when it finds no committed
// generated file at all, since it would then compare nothing.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { root as repositoryRoot, workspacePackages } from "./workspace-packages.mjs";

/** Each workspace package's src/generated folder that exists, relative to the root. */
export function generatedFolders(rootDir = repositoryRoot) {
  return workspacePackages(rootDir)
    .map(({ dir }) => join(dir, "src", "generated"))
    .filter((dir) => existsSync(dir))
    .map((dir) => relative(rootDir, dir));
}

/**
 * What git says about the generated folders: the files it tracks there (`tracked`), and the
 * porcelain lines of those changed, added or deleted since the commit (`changed`).
 * Throws when `rootDir` is not a git checkout.
 * @returns {{ folders: string[], tracked: string[], changed: string[] }}
 */
export function generatedDrift(rootDir = repositoryRoot) {
  const folders = generatedFolders(rootDir);
  if (folders.length === 0) return { folders, tracked: [], changed: [] };
  const git = (/** @type {string[]} */ ...args) =>
    execFileSync("git", [...args, "--", ...folders.map((f) => `:(literal)${f}`)], {
      cwd: rootDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    })
      .split("\n")
      .filter((line) => line !== "");
  return {
    folders,
    tracked: git("ls-files"),
    changed: git("status", "--porcelain", "--untracked-files=all"),
  };
}

function main() {
  const { values } = parseArgs({ options: { root: { type: "string" } } });
  const rootDir = values.root ?? repositoryRoot;
  let drift;
  try {
    drift = generatedDrift(rootDir);
  } catch (error) {
    const reason = /** @type {{ stderr?: string, message: string }} */ (error);
    console.error(
      `drift: cannot ask git about the generated files in ${rootDir}, so they cannot be compared with the commit: ${(reason.stderr || reason.message).trim()}`,
    );
    return 1;
  }
  if (drift.tracked.length === 0) {
    const where =
      drift.folders.length > 0 ? drift.folders.join(", ") : "no package has a src/generated folder";
    console.error(`drift: no committed generated file found (${where}); the check would compare nothing`);
    return 1;
  }
  if (drift.changed.length > 0) {
    console.error(
      `drift: generated files differ from the commit after regeneration:\n${drift.changed.join("\n")}`,
    );
    console.error(`drift: run \`npm run build\` and commit the files under ${drift.folders.join(", ")}.`);
    return 1;
  }
  console.log(
    `drift: the ${drift.tracked.length} generated files under ${drift.folders.join(", ")} match the commit`,
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main();
