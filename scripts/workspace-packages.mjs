// The workspace's packages as npm sees them: every folder the root package.json's `workspaces`
// names, with its manifest. Scripts that check or publish packages start here, so a package added
// later is checked without anyone listing it.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * @typedef {{ name: string, version: string, private?: boolean, dependencies?: Record<string, string>,
 *   peerDependencies?: Record<string, string>, optionalDependencies?: Record<string, string>,
 *   devDependencies?: Record<string, string>, bin?: string | Record<string, string>,
 *   exports?: unknown, files?: string[], scripts?: Record<string, string>, license?: string,
 *   publishConfig?: Record<string, string>, main?: string, workspaces?: string[] }} Manifest
 * @typedef {{ dir: string, manifest: Manifest }} WorkspacePackage
 */

/** Every workspace package, in folder order. Only `dir/*` globs are supported, as the root uses. */
export function workspacePackages(rootDir = root) {
  const { workspaces = [] } = readJson(join(rootDir, "package.json"));
  /** @type {WorkspacePackage[]} */
  const found = [];
  for (const pattern of workspaces) {
    const parent = pattern.replace(/\/\*$/, "");
    if (parent === pattern || parent.includes("*")) {
      throw new Error(`package.json workspaces: expected "folder/*" entries, found "${pattern}"`);
    }
    for (const name of readdirSync(join(rootDir, parent)).sort()) {
      const manifestPath = join(rootDir, parent, name, "package.json");
      if (existsSync(manifestPath))
        found.push({ dir: join(rootDir, parent, name), manifest: readJson(manifestPath) });
    }
  }
  // Every check that walks the packages would pass over an empty list.
  if (found.length === 0) {
    throw new Error(
      `${join(rootDir, "package.json")} workspaces (${JSON.stringify(workspaces)}): no folder with a package.json found`,
    );
  }
  return found;
}

/** The packages that get published: every workspace package not marked private. */
export function publicPackages(rootDir = root) {
  return workspacePackages(rootDir).filter((p) => p.manifest.private !== true);
}

/** The files `npm pack` would put in the package's tarball, relative to its folder. */
/**
 * @param {string} dir
 * @returns {string[]}
 */
export function packedFiles(dir) {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(out)[0].files.map((/** @type {{ path: string }} */ f) => f.path);
}

/** Dependencies a consumer's install brings along with the package. */
export function runtimeDependencyNames(/** @type {Manifest} */ manifest) {
  return new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
}

/**
 * @param {string} path
 * @returns {any} whatever the file holds; callers say what they expect
 */
export function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}
