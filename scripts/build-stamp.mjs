// Whether a package's dist/ was built from its current sources.
//
// A package's build digest is the SHA-256 of its build inputs:
//   - every file of the package folder that git tracks or would track (not ignored), except
//     test/, bench/ and Markdown files, which no build reads;
//   - the repository files every build reads, tsconfig.base.json, and those the package's build
//     task lists in turbo.json as `$TURBO_ROOT$/...` inputs (its own turbo.json, else the root's):
//     @marketapi/spec's build reads the two files of specs/, @marketapi/docs' build all of specs/;
//   - the build digests of the workspace packages it depends on (dependencies and
//     devDependencies), since its build runs their code (codegen regenerates the client from spec).
// These are the inputs turbo hashes for the build task (turbo.json), so dist/ is stale exactly when
// `npm run build` would rebuild it.
//
// The build writes the digest, with the hash of each input, to dist/.build-stamp.json as its last
// step (`node ../../scripts/build-stamp.mjs write`). `prepack` runs `... check`: it refuses to pack
// (so npm publish refuses to publish) a package whose dist/ is missing, has no stamp, or has a
// stamp of other inputs, and names the inputs that changed.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { readJson, root, workspacePackages } from "./workspace-packages.mjs";

export const STAMP_FILE = join("dist", ".build-stamp.json");

/** Repository files outside the package folder that every package's build reads. */
const SHARED_INPUTS = ["tsconfig.base.json"];

/**
 * The repository paths outside the package folder that its build task lists in turbo.json
 * (`$TURBO_ROOT$/<file>` or `$TURBO_ROOT$/<folder>/**`), so that the stamp and turbo agree on
 * what a build reads. The package's turbo.json wins over the root's, as in turbo.
 * @param {string} dir
 * @param {string} rootDir
 * @returns {string[]}
 */
export function turboRootInputs(dir, rootDir = root) {
  const inputsOf = (/** @type {string} */ file) =>
    existsSync(file) ? readJson(file).tasks?.build?.inputs : undefined;
  /** @type {string[]} */
  const inputs = inputsOf(join(dir, "turbo.json")) ?? inputsOf(join(rootDir, "turbo.json")) ?? [];
  return inputs
    .filter((input) => input.startsWith("$TURBO_ROOT$/"))
    .map((input) => {
      const path = input.slice("$TURBO_ROOT$/".length).replace(/\/\*\*$/, "");
      if (path.includes("*") || path === "")
        throw new Error(
          `${relative(rootDir, dir)}: turbo.json build input "${input}": expected $TURBO_ROOT$/<file> or $TURBO_ROOT$/<folder>/**`,
        );
      return path;
    });
}
/** Folders and files inside a package that no build reads. */
const NOT_INPUT = /(^|\/)(test|bench|node_modules|dist|test-results|artifacts|\.turbo)(\/|$)|\.md$|\.tgz$/;

const posix = (/** @type {string} */ path) => path.split(sep).join("/");
const sha256 = (/** @type {string | Buffer} */ data) => createHash("sha256").update(data).digest("hex");

/** Files under the given repository paths that git tracks or would track, relative to the root. */
/**
 * @param {string[]} paths
 * @param {string} rootDir
 * @returns {string[]}
 */
function sourceFiles(paths, rootDir) {
  try {
    const out = execFileSync(
      "git",
      ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...paths],
      {
        cwd: rootDir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    return out.split("\0").filter((f) => f !== "" && existsSync(join(rootDir, f)));
  } catch {
    // Not a git checkout: every file under the paths, less what no build reads.
    /** @type {(path: string) => string[]} */
    const walk = (path) =>
      statSync(join(rootDir, path)).isDirectory()
        ? readdirSync(join(rootDir, path)).flatMap((name) => walk(`${path}/${name}`))
        : [path];
    return paths.filter((p) => existsSync(join(rootDir, p))).flatMap(walk);
  }
}

/**
 * The build inputs of the workspace package in `dir`: input path → SHA-256 of its contents, plus
 * "build of <name>" → digest for each workspace package it depends on.
 */
export function buildInputs(/** @type {string} */ dir, rootDir = root, memo = new Map()) {
  const ownDir = posix(relative(rootDir, dir));
  const files = sourceFiles([ownDir, ...SHARED_INPUTS, ...turboRootInputs(dir, rootDir)], rootDir)
    .map(posix)
    .filter((f) => !NOT_INPUT.test(f.startsWith(`${ownDir}/`) ? f.slice(ownDir.length + 1) : f))
    .sort();
  /** @type {Record<string, string>} */
  const inputs = {};
  for (const file of files) inputs[file] = sha256(readFileSync(join(rootDir, file)));
  const manifest = readJson(join(dir, "package.json"));
  const workspace = new Map(workspacePackages(rootDir).map((p) => [p.manifest.name, p.dir]));
  const upstream = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })
    .filter((name) => workspace.has(name))
    .sort();
  for (const name of upstream) {
    inputs[`build of ${name}`] = buildDigest(/** @type {string} */ (workspace.get(name)), rootDir, memo);
  }
  return inputs;
}

/** The SHA-256 of a package's build inputs (see the top of this file). */
export function buildDigest(/** @type {string} */ dir, rootDir = root, memo = new Map()) {
  if (!memo.has(dir)) {
    memo.set(dir, "(cycle)");
    const inputs = buildInputs(dir, rootDir, memo);
    memo.set(dir, sha256(JSON.stringify(inputs)));
  }
  return memo.get(dir);
}

/** Records the current build inputs in dist/.build-stamp.json (the last step of a build). */
export function writeStamp(/** @type {string} */ dir, rootDir = root) {
  const memo = new Map();
  const inputs = buildInputs(dir, rootDir, memo);
  const stamp = { digest: sha256(JSON.stringify(inputs)), inputs };
  writeFileSync(join(dir, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  return stamp;
}

/**
 * Whether dist/ holds a build of the current inputs. Returns null when it does, or the reason it
 * does not: dist/ missing, no stamp, or the inputs that changed since the build.
 */
export function staleness(/** @type {string} */ dir, rootDir = root) {
  const name = readJson(join(dir, "package.json")).name;
  const fix = "run `npm run build` at the repository root";
  if (!existsSync(join(dir, "dist"))) return `${name}: dist/ is missing; ${fix}`;
  if (!existsSync(join(dir, STAMP_FILE))) return `${name}: dist/ has no build stamp (${STAMP_FILE}); ${fix}`;
  const stamp = readJson(join(dir, STAMP_FILE));
  const inputs = buildInputs(dir, rootDir);
  if (sha256(JSON.stringify(inputs)) === stamp.digest) return null;
  const changed = [...new Set([...Object.keys(inputs), ...Object.keys(stamp.inputs ?? {})])]
    .filter((input) => inputs[input] !== stamp.inputs?.[input])
    .sort()
    .map((input) =>
      !(input in (stamp.inputs ?? {})) ? `${input} (new)` : !(input in inputs) ? `${input} (gone)` : input,
    );
  const shown =
    changed.slice(0, 10).join(", ") + (changed.length > 10 ? `, and ${changed.length - 10} more` : "");
  return `${name}: dist/ is stale: changed since it was built: ${shown}; ${fix}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command] = process.argv.slice(2);
  const dir = process.cwd();
  if (command === "write") {
    writeStamp(dir);
  } else if (command === "check") {
    const reason = staleness(dir);
    if (reason) {
      console.error(`refusing to pack ${reason}`);
      process.exit(1);
    }
  } else {
    console.error("usage: node scripts/build-stamp.mjs write|check   (in a package folder)");
    process.exit(2);
  }
}
