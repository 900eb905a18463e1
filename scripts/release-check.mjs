// The release check: every public package, packed, installed alone into a fresh consumer project
// outside the repository, the way a user gets it from a registry; then its commands, its main
// job, every subpath of its `exports`, publint and are-the-types-wrong. scripts/test/release-check.test.ts
// runs it in `npm test`; `node scripts/release-check.mjs [name...]` runs it by hand.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, join, parse as parsePath } from "node:path";
import { publicPackages, readJson, root, runtimeDependencyNames } from "./workspace-packages.mjs";

/** @typedef {import("./workspace-packages.mjs").WorkspacePackage} WorkspacePackage */
/** @typedef {{ code: number | null, signal: string | null, stdout: string, stderr: string }} RunResult */

/**
 * Runs a command to its end, never through a shell. `input` is written to its stdin.
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
export function transcript(label, result) {
  return `${label}: exit ${result.code ?? result.signal}\n${result.stdout}${result.stderr}`.trimEnd();
}

// ---- packing ------------------------------------------------------------------------------------

/**
 * Packs each package into `dest` with `npm pack`, which runs its `prepack` (the check that dist/
 * is built from the current sources) unless `ignoreScripts`. Returns name → tarball path.
 * @param {WorkspacePackage[]} packages
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
 * @param {Map<string, WorkspacePackage>} byName
 */
export function workspaceClosure(name, byName) {
  const seen = new Set();
  const visit = (current) => {
    for (const dep of runtimeDependencyNames(byName.get(current).manifest)) {
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
 */
export async function installConsumer(
  pkg,
  tarballs,
  byName,
  parent,
  { allowScripts = reviewedInstallScripts() } = {},
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
    dependencies: { [name]: `file:${tarballs.get(name)}` },
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
 */
export function installConsumers(packages, tarballs, byName, parent, { concurrency = 2 } = {}) {
  let running = 0;
  const waiting = [];
  const slot = () => {
    if (running >= concurrency) return new Promise((resolve) => waiting.push(resolve));
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
export function packagesWithInstallScripts(consumerDir) {
  const found = new Set();
  const visit = (modules) => {
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
export function exportEntries(manifest) {
  const exportsMap = manifest.exports;
  if (exportsMap === undefined)
    return [{ subpath: ".", file: manifest.main ?? "./index.js", kind: "module" }];
  const map =
    typeof exportsMap === "string" || !Object.keys(exportsMap)[0]?.startsWith(".")
      ? { ".": exportsMap }
      : exportsMap;
  return Object.entries(map).map(([subpath, target]) => {
    const file = nodeTarget(target);
    if (file === undefined)
      throw new Error(`${manifest.name}: exports["${subpath}"] has no target Node can import`);
    const ext = extname(file);
    const kind = [".js", ".mjs", ".cjs"].includes(ext) ? "module" : ext === ".json" ? "json" : "file";
    return { subpath, file, kind };
  });
}

function nodeTarget(target) {
  if (typeof target === "string") return target;
  if (target === null || typeof target !== "object") return undefined;
  for (const condition of ["import", "node", "default"]) {
    const found = nodeTarget(target[condition]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Imports every subpath of a package's exports in a fresh Node process in the consumer: modules
 * must load and export something, JSON must parse, data files must resolve to a file.
 * Returns one message per failure.
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
  return JSON.parse(result.stdout)
    .filter((r) => !r.ok)
    .map((r) => `import("${r.specifier}") in a consumer: ${r.error}`);
}

// ---- files ----------------------------------------------------------------------------------------

/** Every file under a folder, relative to it. */
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
export function sourceMapProblems(installedDir) {
  const problems = [];
  for (const map of filesUnder(installedDir).filter((f) => f.endsWith(".map"))) {
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

export function missingRequiredFiles(installedDir) {
  return REQUIRED_FILES.filter((file) => !existsSync(join(installedDir, file)));
}

// ---- commands -----------------------------------------------------------------------------------

/** The package's commands: name → path of the script. */
export function binsOf(manifest) {
  if (typeof manifest.bin === "string") return { [manifest.name.replace(/^@[^/]+\//, "")]: manifest.bin };
  return manifest.bin ?? {};
}

/** Runs a command as npm linked it into the consumer's node_modules/.bin. */
export function runBin(consumerDir, bin, args, options = {}) {
  return run(join(consumerDir, "node_modules", ".bin", bin), args, { cwd: consumerDir, ...options });
}

/**
 * Starts `marketapi-server` from a script path on a free port and resolves when it prints its
 * base URL; `stop()` ends it with SIGTERM and resolves with its exit code.
 */
export function startServer(command, args, cwd) {
  const child = spawn(command, [...args, "--port", "0"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  const started = new Promise((resolve, reject) => {
    const onData = (d) => {
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

const DEMO_KEY = "marketapi-demo-api-key";
const DEMO_SECRET = "marketapi-demo-api-secret";

const validEndpoint = {
  resourceType: "Endpoint",
  status: "active",
  connectionType: {
    system: "http://terminology.hl7.org/CodeSystem/endpoint-connection-type",
    code: "hl7-fhir-rest",
  },
  payloadType: [{ text: "any" }],
  address: "https://example.org/fhir",
};

/**
 * The main job of every command, run in a consumer project. Each returns the failures it saw (an
 * empty list when the job works). A command with no entry here fails the release check: adding a
 * command means saying what proves it works.
 * @type {Record<string, (consumerDir: string) => Promise<string[]>>}
 */
export const mainJobs = {
  async "marketapi-server"(dir) {
    const server = startServer(join(dir, "node_modules", ".bin", "marketapi-server"), [], dir);
    try {
      const url = await server.started;
      const ping = await fetch(`${url}/api/v3/ping`);
      const depth = await fetch(`${url}/api/v3/depth?symbol=BTCUSDT&limit=5`);
      const book = await depth.json();
      const failures = [];
      if (ping.status !== 200) failures.push(`GET /api/v3/ping answered ${ping.status}`);
      if (depth.status !== 200 || !Array.isArray(book.bids) || book.bids.length === 0) {
        failures.push(`GET /api/v3/depth answered ${depth.status} ${JSON.stringify(book).slice(0, 200)}`);
      }
      const code = await server.stop();
      if (code !== 0) failures.push(`marketapi-server exited ${code} on SIGTERM:\n${server.output()}`);
      return failures;
    } finally {
      await server.stop();
    }
  },

  async "marketapi-contract"(dir) {
    const failures = [];
    const embedded = await runBin(dir, "marketapi-contract", ["--seed", "1"], { env: { NO_COLOR: "1" } });
    if (embedded.code !== 0)
      failures.push(transcript("marketapi-contract (embedded reference server)", embedded));
    // Against a server started from the reference server the contract tester depends on. That server
    // accepts a few live-API values beyond the spec on purpose, which --reference-extras knows.
    const serverBin = join(
      dir,
      "node_modules",
      "@marketapi",
      "reference-server",
      "bin",
      "marketapi-server.js",
    );
    const server = startServer(process.execPath, [serverBin], dir);
    try {
      const url = await server.started;
      const args = [
        "--base-url",
        url,
        "--reference-extras",
        "--api-key",
        DEMO_KEY,
        "--api-secret",
        DEMO_SECRET,
        "--allow-trading",
        "--seed",
        "1",
      ];
      const remote = await runBin(dir, "marketapi-contract", args, { env: { NO_COLOR: "1" } });
      if (remote.code !== 0) failures.push(transcript(`marketapi-contract --base-url ${url}`, remote));
    } finally {
      await server.stop();
    }
    return failures;
  },

  async "marketapi-codegen"(dir) {
    const failures = [];
    const generate = await runBin(dir, "marketapi-codegen", ["--out", "src/generated"]);
    if (generate.code !== 0) return [transcript("marketapi-codegen --out src/generated", generate)];
    const written = existsSync(join(dir, "src/generated")) ? readdirSync(join(dir, "src/generated")) : [];
    if (!written.some((f) => f.endsWith(".ts")))
      failures.push(`marketapi-codegen wrote no .ts files: ${written}`);
    const fresh = await runBin(dir, "marketapi-codegen", ["--out", "src/generated", "--check"]);
    if (fresh.code !== 0) failures.push(transcript("marketapi-codegen --check on fresh output", fresh));
    rmSync(
      join(
        dir,
        "src/generated",
        written.find((f) => f.endsWith(".ts")),
      ),
    );
    const stale = await runBin(dir, "marketapi-codegen", ["--out", "src/generated", "--check"]);
    if (stale.code !== 1)
      failures.push(transcript("marketapi-codegen --check after a file was deleted (want exit 1)", stale));
    return failures;
  },

  async "marketapi-docs"(dir) {
    const spec = join(dir, "node_modules", "@marketapi", "spec", "dist", "openapi.yaml");
    const built = await runBin(dir, "marketapi-docs", ["build", "--spec", spec, "--out", "site"]);
    if (built.code !== 0) return [transcript("marketapi-docs build --spec openapi.yaml --out site", built)];
    const missing = ["index.html", "api.html", "endpoint.html", "api.openapi.json"].filter(
      (file) => !existsSync(join(dir, "site", file)),
    );
    return missing.length === 0 ? [] : [`marketapi-docs build wrote no ${missing.join(", ")}`];
  },

  async "marketapi-diff"(dir) {
    const failures = [];
    const document = (version, symbolRequired) =>
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "consumer", version },
        paths: {
          "/ping": {
            get: {
              operationId: "ping",
              parameters: [
                { name: "symbol", in: "query", required: symbolRequired, schema: { type: "string" } },
              ],
              responses: { 200: { description: "ok" } },
            },
          },
        },
      });
    writeFileSync(join(dir, "old.json"), document("1.0.0", false));
    writeFileSync(join(dir, "new.json"), document("2.0.0", true));
    writeFileSync(join(dir, "bad.yaml"), "openapi: 3.0.3\ninfo: { title: x, version: '1' }\n");
    const same = await runBin(dir, "marketapi-diff", ["old.json", "old.json"]);
    if (same.code !== 0) failures.push(transcript("marketapi-diff old.json old.json (want exit 0)", same));
    const breaking = await runBin(dir, "marketapi-diff", ["old.json", "new.json", "--json"]);
    const kinds = breaking.code === 1 ? JSON.parse(breaking.stdout).changes.map((c) => c.kind) : [];
    if (!kinds.includes("parameter-became-required")) {
      failures.push(
        transcript(
          "marketapi-diff old.json new.json --json (want exit 1, parameter-became-required)",
          breaking,
        ),
      );
    }
    const bad = await runBin(dir, "marketapi-diff", ["old.json", "bad.yaml"]);
    if (bad.code !== 2 || !bad.stderr.includes("bad.yaml#/openapi (line 1, column 1)")) {
      failures.push(
        transcript(
          "marketapi-diff old.json bad.yaml (want exit 2 naming bad.yaml#/openapi (line 1, column 1))",
          bad,
        ),
      );
    }
    return failures;
  },

  async "marketapi-validate"(dir) {
    const failures = [];
    writeFileSync(join(dir, "endpoint.json"), JSON.stringify(validEndpoint));
    writeFileSync(
      join(dir, "broken.json"),
      JSON.stringify({ ...validEndpoint, address: "https://example.org/a b" }),
    );
    const valid = await runBin(dir, "marketapi-validate", ["endpoint", "endpoint.json"]);
    if (valid.code !== 0) failures.push(transcript("marketapi-validate endpoint (a valid record)", valid));
    const invalid = await runBin(dir, "marketapi-validate", ["endpoint", "broken.json"]);
    if (invalid.code !== 1 || !`${invalid.stdout}${invalid.stderr}`.includes("/address")) {
      failures.push(
        transcript(
          "marketapi-validate endpoint (address with a space: want exit 1 naming /address)",
          invalid,
        ),
      );
    }
    const request = await runBin(dir, "marketapi-validate", ["request", "order_book", "-", "--query"], {
      input: "symbol=BTCUSDT&limit=5",
    });
    if (request.code !== 0)
      failures.push(transcript("marketapi-validate request order_book --query", request));
    return failures;
  },
};

/** `--help` of every command: exit 0 and a usage text that names the command. */
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

/** The main job of every command of the package (see `mainJobs`). */
export async function mainJobOfEveryCommand(consumerDir, manifest) {
  const failures = [];
  for (const bin of Object.keys(binsOf(manifest))) {
    const job = mainJobs[bin];
    if (!job) {
      failures.push(
        `${manifest.name}: no main job for the command ${bin}; add one to mainJobs in scripts/release-check.mjs`,
      );
      continue;
    }
    failures.push(...(await job(consumerDir)));
  }
  return failures;
}

// ---- linters of the tarball ---------------------------------------------------------------------

const bin = (name) => join(root, "node_modules", ".bin", name);

/** publint on the tarball, warnings counted as errors. */
export async function publint(tarball) {
  const result = await run(bin("publint"), ["run", tarball, "--strict"]);
  return result.code === 0 ? [] : [transcript(`publint ${tarball}`, result)];
}

/**
 * are-the-types-wrong on the tarball (what `attw --pack` checks), for ESM-only packages: every
 * subpath must resolve to types and JavaScript under node16 (ESM) and bundler resolution. Subpaths
 * of data files (openapi.yaml) are not modules and are left out.
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
async function main(names) {
  const packages = publicPackages().filter((p) => names.length === 0 || names.includes(p.manifest.name));
  const byName = new Map(publicPackages().map((p) => [p.manifest.name, p]));
  const parent = consumerRoot();
  const tarballs = await packPackages([...byName.values()], join(parent, "tarballs"));
  let failed = 0;
  for (const pkg of packages) {
    const { manifest } = pkg;
    const { dir, result } = await installConsumer(pkg, tarballs, byName, parent);
    const failures =
      result.code !== 0
        ? [transcript("npm install in the consumer", result)]
        : [
            ...(await helpOfEveryCommand(dir, manifest)),
            ...(await mainJobOfEveryCommand(dir, manifest)),
            ...(await importEveryExport(dir, manifest)),
            ...(await publint(tarballs.get(manifest.name))),
            ...(await areTheTypesWrong(tarballs.get(manifest.name), manifest)),
          ];
    console.log(`${failures.length === 0 ? "ok    " : "FAILED"} ${manifest.name} (consumer in ${dir})`);
    for (const failure of failures) console.log(`  ${failure.replaceAll("\n", "\n  ")}`);
    failed += failures.length > 0 ? 1 : 0;
  }
  if (failed === 0) rmSync(parent, { recursive: true, force: true });
  process.exit(failed === 0 ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
