// The release check: every public package, packed, installed alone into a fresh consumer project
// outside the repository, the way a user gets it from a registry; then its commands, its main
// job, every subpath of its `exports`, publint and are-the-types-wrong. scripts/test/release-check.test.ts
// runs it in `npm test`; `node scripts/release-check.mjs [name...]` runs it by hand.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, join, parse as parsePath, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { publicPackages, readJson, root, runtimeDependencyNames } from "./workspace-packages.mjs";

/** @typedef {import("./workspace-packages.mjs").WorkspacePackage} WorkspacePackage */
/** @typedef {{ code: number | null, signal: string | null, stdout: string, stderr: string }} RunResult */
/** @typedef {{ cwd?: string, env?: Record<string, string>, input?: string }} RunOptions */

/**
 * Runs a command to its end, never through a shell. `input` is written to its stdin.
 * @param {string} command
 * @param {string[]} args
 * @param {RunOptions} [options]
 * @returns {Promise<RunResult>}
 */
export function run(command, args, { cwd = root, env = {}, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** A command's output for a failure message. */
export function transcript(/** @type {string} */ label, /** @type {RunResult} */ result) {
  return `${label}: exit ${result.code ?? result.signal}\n${result.stdout}${result.stderr}`.trimEnd();
}

// ---- packing ------------------------------------------------------------------------------------

/**
 * Packs each package into `dest` with `npm pack`, which runs its `prepack` (the check that dist/
 * is built from the current sources) unless `ignoreScripts`. Returns name → tarball path.
 * @param {{ dir: string, manifest: { name: string, version: string } }[]} packages
 * @param {string} dest
 */
export async function packPackages(packages, dest, { ignoreScripts = false } = {}) {
  mkdirSync(dest, { recursive: true });
  /** @type {Map<string, string>} */
  const tarballs = new Map();
  for (const { dir, manifest } of packages) {
    const args = [
      "pack",
      "--json",
      "--pack-destination",
      dest,
      ...(ignoreScripts ? ["--ignore-scripts"] : []),
    ];
    const result = await run("npm", args, { cwd: dir });
    if (result.code !== 0) throw new Error(transcript(`npm pack of ${manifest.name}`, result));
    const [{ filename }] = JSON.parse(result.stdout.slice(result.stdout.indexOf("[")));
    tarballs.set(manifest.name, join(dest, filename));
  }
  return tarballs;
}

/**
 * The workspace packages a package needs at run time, directly or through another workspace
 * package: what a registry would resolve for it besides third-party packages.
 * @param {string} name
 * @param {Map<string, WorkspacePackage>} byName
 */
export function workspaceClosure(name, byName) {
  /** @type {Set<string>} */
  const seen = new Set();
  const visit = (/** @type {string} */ current) => {
    const pkg = byName.get(current);
    if (pkg === undefined) throw new Error(`${current} is not a workspace package`);
    for (const dep of runtimeDependencyNames(pkg.manifest)) {
      if (byName.has(dep) && !seen.has(dep)) {
        seen.add(dep);
        visit(dep);
      }
    }
  };
  visit(name);
  seen.delete(name);
  return [...seen].sort();
}

// ---- the consumer project -----------------------------------------------------------------------

/**
 * The install scripts the project has reviewed and allows: the root package.json's `allowScripts`
 * (npm's own policy field), which the monorepo's install uses too. A consumer of a package whose
 * dependency needs its install script (a native addon, say) must allow it the same way; each such
 * package's README says so, and the release check holds it to that.
 */
export function reviewedInstallScripts() {
  return readJson(join(root, "package.json")).allowScripts ?? {};
}

/** A folder for consumer projects with no node_modules above it, so nothing resolves by accident. */
export function consumerRoot() {
  const dir = mkdtempSync(join(tmpdir(), "marketapi-release-check-"));
  for (let up = dirname(dir); up !== parsePath(up).root; up = dirname(up)) {
    if (existsSync(join(up, "node_modules"))) {
      throw new Error(`${up}/node_modules exists: a consumer under ${dir} could resolve packages from it`);
    }
  }
  return dir;
}

/**
 * Creates a consumer project that depends on one package's tarball only; the workspace packages
 * it needs resolve to their tarballs (overrides), everything else from the registry, through the
 * local npm cache. Install scripts not in `allowScripts` (by default the reviewed list) fail the
 * install (strict-allow-scripts).
 * @param {WorkspacePackage} pkg
 * @param {Map<string, string>} tarballs
 * @param {Map<string, WorkspacePackage>} byName
 * @param {string} parent
 * @param {{ allowScripts?: Record<string, boolean>, extraDependencies?: Record<string, string> }} [options]
 *   `extraDependencies`: registry packages the consumer adds beside it (an optional peer, say)
 */
export async function installConsumer(
  pkg,
  tarballs,
  byName,
  parent,
  { allowScripts = reviewedInstallScripts(), extraDependencies = {} } = {},
) {
  const name = pkg.manifest.name;
  const dir = join(parent, name.replace(/^@/, "").replace("/", "-"));
  mkdirSync(dir, { recursive: true });
  const overrides = Object.fromEntries(
    workspaceClosure(name, byName).map((dep) => [dep, `file:${tarballs.get(dep)}`]),
  );
  const manifest = {
    name: "release-check-consumer",
    private: true,
    type: "module",
    dependencies: { [name]: `file:${tarballs.get(name)}`, ...extraDependencies },
    overrides,
    allowScripts,
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, ".npmrc"), "strict-allow-scripts=true\n");
  const result = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: dir });
  return { dir, result };
}

/**
 * Starts the consumer install of every package, `concurrency` at a time (native addons compile
 * from source, so two installs keep both cores busy). Returns name → promise of its install.
 * @param {WorkspacePackage[]} packages
 * @param {Map<string, string>} tarballs
 * @param {Map<string, WorkspacePackage>} byName
 * @param {string} parent
 */
export function installConsumers(packages, tarballs, byName, parent, { concurrency = 2 } = {}) {
  let running = 0;
  /** @type {(() => void)[]} */
  const waiting = [];
  const slot = () => {
    if (running >= concurrency) return new Promise((resolve) => waiting.push(() => resolve(undefined)));
    running++;
    return Promise.resolve();
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return new Map(
    packages.map((pkg) => [
      pkg.manifest.name,
      slot().then(() => installConsumer(pkg, tarballs, byName, parent).finally(release)),
    ]),
  );
}

/**
 * The packages installed in a consumer that have install scripts (preinstall, install,
 * postinstall, or a binding.gyp, which npm builds with node-gyp).
 */
export function packagesWithInstallScripts(/** @type {string} */ consumerDir) {
  // A project without node_modules would have no install script to find.
  if (!existsSync(join(consumerDir, "node_modules"))) {
    throw new Error(`${consumerDir} has no node_modules: nothing was installed there`);
  }
  /** @type {Set<string>} */
  const found = new Set();
  const visit = (/** @type {string} */ modules) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith(".")) continue;
      const dirs = entry.startsWith("@")
        ? readdirSync(join(modules, entry)).map((n) => join(modules, entry, n))
        : [join(modules, entry)];
      for (const dir of dirs) {
        if (!existsSync(join(dir, "package.json"))) continue;
        const { name, scripts = {} } = readJson(join(dir, "package.json"));
        const hasScript = ["preinstall", "install", "postinstall"].some((s) => scripts[s]);
        if (hasScript || existsSync(join(dir, "binding.gyp"))) found.add(name);
        visit(join(dir, "node_modules"));
      }
    }
  };
  visit(join(consumerDir, "node_modules"));
  return [...found].sort();
}

// ---- exports ------------------------------------------------------------------------------------

/**
 * Each subpath of an `exports` map with the file a Node import resolves it to ("import", "node",
 * "default", in that order of preference) and how to load it: a module, JSON, or a data file.
 */
/**
 * @param {import("./workspace-packages.mjs").Manifest} manifest
 * @returns {{ subpath: string, file: string, kind: "module" | "json" | "file" }[]}
 */
export function exportEntries(manifest) {
  const exportsMap = manifest.exports;
  if (exportsMap === undefined)
    return [{ subpath: ".", file: manifest.main ?? "./index.js", kind: "module" }];
  /** @type {Record<string, unknown>} */
  const map =
    typeof exportsMap !== "object" || exportsMap === null || !Object.keys(exportsMap)[0]?.startsWith(".")
      ? { ".": exportsMap }
      : /** @type {Record<string, unknown>} */ (exportsMap);
  return Object.entries(map).map(([subpath, target]) => {
    const file = nodeTarget(target);
    if (file === undefined)
      throw new Error(`${manifest.name}: exports["${subpath}"] has no target Node can import`);
    const ext = extname(file);
    /** @type {"module" | "json" | "file"} */
    const kind = [".js", ".mjs", ".cjs"].includes(ext) ? "module" : ext === ".json" ? "json" : "file";
    return { subpath, file, kind };
  });
}

/**
 * @param {unknown} target
 * @returns {string | undefined}
 */
function nodeTarget(target) {
  if (typeof target === "string") return target;
  if (target === null || typeof target !== "object") return undefined;
  for (const condition of ["import", "node", "default"]) {
    const found = nodeTarget(/** @type {Record<string, unknown>} */ (target)[condition]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Imports every subpath of a package's exports in a fresh Node process in the consumer: modules
 * must load and export something, JSON must parse, data files must resolve to a file.
 * Returns one message per failure.
 */
/**
 * @param {string} consumerDir
 * @param {import("./workspace-packages.mjs").Manifest} manifest
 * @returns {Promise<string[]>}
 */
export async function importEveryExport(consumerDir, manifest) {
  const entries = exportEntries(manifest).map((e) => ({
    ...e,
    specifier: e.subpath === "." ? manifest.name : `${manifest.name}/${e.subpath.slice(2)}`,
  }));
  const script = `import { statSync } from "node:fs";
const results = [];
for (const { specifier, kind } of ${JSON.stringify(entries)}) {
  try {
    if (kind === "module") {
      const ns = await import(specifier);
      if (Object.keys(ns).length === 0) throw new Error("the module exports nothing");
    } else if (kind === "json") {
      await import(specifier, { with: { type: "json" } });
    } else if (!statSync(new URL(import.meta.resolve(specifier))).isFile()) {
      throw new Error("does not resolve to a file");
    }
    results.push({ specifier, ok: true });
  } catch (error) {
    results.push({ specifier, ok: false, error: String(error?.message ?? error) });
  }
}
console.log(JSON.stringify(results));
`;
  writeFileSync(join(consumerDir, "import-exports.mjs"), script);
  const result = await run(process.execPath, ["import-exports.mjs"], { cwd: consumerDir });
  if (result.code !== 0) return [transcript("importing the exports", result)];
  /** @type {{ specifier: string, ok: boolean, error?: string }[]} */
  const results = JSON.parse(result.stdout);
  return results.filter((r) => !r.ok).map((r) => `import("${r.specifier}") in a consumer: ${r.error}`);
}

// ---- files ----------------------------------------------------------------------------------------

/** Every file under a folder, relative to it. */
/**
 * @param {string} dir
 * @returns {string[]}
 */
function filesUnder(dir, prefix = "") {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(dir, path);
    return [path];
  });
}

/**
 * Source maps must come with the sources they name: each entry of a shipped map's `sources` must
 * be a file the package ships, or be embedded in `sourcesContent`. Returns one message per miss.
 */
export function sourceMapProblems(/** @type {string} */ installedDir) {
  /** @type {string[]} */
  const problems = [];
  for (const map of filesUnder(installedDir).filter((f) => f.endsWith(".map"))) {
    /** @type {{ sources?: string[], sourcesContent?: (string | null)[], sourceRoot?: string }} */
    const { sources = [], sourcesContent = [], sourceRoot = "" } = readJson(join(installedDir, map));
    sources.forEach((source, i) => {
      const file = join(installedDir, dirname(map), sourceRoot, source);
      if (typeof sourcesContent[i] !== "string" && !existsSync(file)) {
        problems.push(`${map} names ${source}, which the package does not ship`);
      }
    });
  }
  return problems;
}

/** The files every published package carries besides its code. */
export const REQUIRED_FILES = ["package.json", "README.md", "LICENSE", "CHANGELOG.md"];

export function missingRequiredFiles(/** @type {string} */ installedDir) {
  return REQUIRED_FILES.filter((file) => !existsSync(join(installedDir, file)));
}

// ---- commands -----------------------------------------------------------------------------------

/** The package's commands: name → path of the script. */
/**
 * @param {import("./workspace-packages.mjs").Manifest} manifest
 * @returns {Record<string, string>}
 */
export function binsOf(manifest) {
  if (typeof manifest.bin === "string") return { [manifest.name.replace(/^@[^/]+\//, "")]: manifest.bin };
  return manifest.bin ?? {};
}

/** Runs a command as npm linked it into the consumer's node_modules/.bin. */
/**
 * @param {string} consumerDir
 * @param {string} bin
 * @param {string[]} args
 * @param {RunOptions} [options]
 */
export function runBin(consumerDir, bin, args, options = {}) {
  return run(join(consumerDir, "node_modules", ".bin", bin), args, { cwd: consumerDir, ...options });
}

/**
 * Starts `marketapi-server` from a script path on a free port and resolves when it prints its
 * base URL; `stop()` ends it with SIGTERM and resolves with its exit code.
 */
/**
 * @typedef {{ started: Promise<string>, output: () => string, stop: () => Promise<number | string | null> }} StartedServer
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 * @returns {StartedServer}
 */
export function startServer(command, args, cwd) {
  const child = spawn(command, [...args, "--port", "0"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  const started = new Promise((resolve, reject) => {
    const onData = (/** @type {Buffer} */ d) => {
      output += d;
      const url = /base URL\s+(http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    exited.then((code) =>
      reject(new Error(`marketapi-server exited (${code}) before it listened:\n${output}`)),
    );
  });
  return {
    started,
    output: () => output,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/**
 * What a package's smoke test gets to use a consumer project: the project's folder, its commands
 * as npm linked them, a server started there, and the transcript of a command for a message.
 * @typedef {{
 *   dir: string,
 *   binPath: (bin: string) => string,
 *   runBin: (bin: string, args: string[], options?: RunOptions) => Promise<RunResult>,
 *   startServer: (command: string, args: string[]) => StartedServer,
 *   transcript: typeof transcript,
 * }} SmokeContext
 */

/** The context a smoke test runs with in the consumer project `dir`. */
export function smokeContext(/** @type {string} */ dir) {
  /** @type {SmokeContext} */
  const ctx = {
    dir,
    binPath: (bin) => join(dir, "node_modules", ".bin", bin),
    runBin: (bin, args, options) => runBin(dir, bin, args, options),
    startServer: (command, args) => startServer(command, args, dir),
    transcript,
  };
  return ctx;
}

/** Where a package keeps the smoke tests of its commands: one function per command, run in a consumer. */
export const SMOKE_TESTS = join("test", "smoke", "commands.mjs");

/**
 * The smoke tests of a package's commands (its `test/smoke/commands.mjs`, which exports `smoke`:
 * command → function of a SmokeContext that returns the failures it saw), or {} when it has none.
 * @param {WorkspacePackage} pkg
 * @returns {Promise<Record<string, (ctx: SmokeContext) => Promise<string[]>>>}
 */
export async function smokeTestsOf(pkg) {
  const file = join(pkg.dir, SMOKE_TESTS);
  if (!existsSync(file)) return {};
  const { smoke } = await import(pathToFileURL(file).href);
  return smoke ?? {};
}

/** `--help` of every command: exit 0 and a usage text that names the command. */
/**
 * @param {string} consumerDir
 * @param {import("./workspace-packages.mjs").Manifest} manifest
 */
export async function helpOfEveryCommand(consumerDir, manifest) {
  const failures = [];
  for (const bin of Object.keys(binsOf(manifest))) {
    const help = await runBin(consumerDir, bin, ["--help"]);
    if (help.code !== 0 || !`${help.stdout}${help.stderr}`.includes(bin)) {
      failures.push(transcript(`${bin} --help (want exit 0 and a usage text naming ${bin})`, help));
    }
  }
  return failures;
}

/**
 * The main job of every command of the package, as its smoke test (`test/smoke/commands.mjs` in
 * the package) runs it in the consumer project. A command without a smoke test fails: adding a
 * command means saying what proves it works.
 * @param {string} consumerDir
 * @param {WorkspacePackage} pkg
 */
export async function mainJobOfEveryCommand(consumerDir, pkg) {
  const failures = [];
  const smoke = await smokeTestsOf(pkg);
  for (const bin of Object.keys(binsOf(pkg.manifest))) {
    const job = smoke[bin];
    if (!job) {
      failures.push(
        `${pkg.manifest.name}: no smoke test for the command ${bin}; add one to ${relative(root, join(pkg.dir, SMOKE_TESTS))}`,
      );
      continue;
    }
    failures.push(...(await job(smokeContext(consumerDir))));
  }
  return failures;
}

// ---- linters of the tarball ---------------------------------------------------------------------

const bin = (/** @type {string} */ name) => join(root, "node_modules", ".bin", name);

/** publint on the tarball, warnings counted as errors. */
export async function publint(/** @type {string} */ tarball) {
  const result = await run(bin("publint"), ["run", tarball, "--strict"]);
  return result.code === 0 ? [] : [transcript(`publint ${tarball}`, result)];
}

/**
 * are-the-types-wrong on the tarball (what `attw --pack` checks), for ESM-only packages: every
 * subpath must resolve to types and JavaScript under node16 (ESM) and bundler resolution. Subpaths
 * of data files (openapi.yaml) are not modules and are left out.
 */
/**
 * @param {string} tarball
 * @param {import("./workspace-packages.mjs").Manifest} manifest
 */
export async function areTheTypesWrong(tarball, manifest) {
  const dataFiles = exportEntries(manifest)
    .filter((e) => e.kind === "file")
    .map((e) => e.subpath);
  const args = [tarball, "--profile", "esm-only", "--format", "ascii", "--no-color", "--no-emoji"];
  if (dataFiles.length > 0) args.push("--exclude-entrypoints", ...dataFiles);
  const result = await run(bin("attw"), args);
  return result.code === 0 ? [] : [transcript(`attw ${tarball}`, result)];
}

// ---- by hand --------------------------------------------------------------------------------------

/** Runs every step for the named packages (all public ones by default) and prints what failed. */
async function main(/** @type {string[]} */ names) {
  const packages = publicPackages().filter((p) => names.length === 0 || names.includes(p.manifest.name));
  const byName = new Map(publicPackages().map((p) => [p.manifest.name, p]));
  const parent = consumerRoot();
  const tarballs = await packPackages([...byName.values()], join(parent, "tarballs"));
  let failed = 0;
  for (const pkg of packages) {
    const { manifest } = pkg;
    const { dir, result } = await installConsumer(pkg, tarballs, byName, parent);
    const tarball = /** @type {string} */ (tarballs.get(manifest.name));
    const failures =
      result.code !== 0
        ? [transcript("npm install in the consumer", result)]
        : [
            ...(await helpOfEveryCommand(dir, manifest)),
            ...(await mainJobOfEveryCommand(dir, pkg)),
            ...(await importEveryExport(dir, manifest)),
            ...(await publint(tarball)),
            ...(await areTheTypesWrong(tarball, manifest)),
          ];
    console.log(`${failures.length === 0 ? "ok    " : "FAILED"} ${manifest.name} (consumer in ${dir})`);
    for (const failure of failures) console.log(`  ${failure.replaceAll("\n", "\n  ")}`);
    failed += failures.length > 0 ? 1 : 0;
  }
  if (failed === 0) rmSync(parent, { recursive: true, force: true });
  process.exit(failed === 0 ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
