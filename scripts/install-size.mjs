// What installing each public package costs a consumer: the time of `npm install` of its packed
// tarball into a fresh project (the release check's consumer project: the @marketapi packages it
// needs as tarballs, everything else from the npm cache with --prefer-offline), the size of the
// node_modules it makes, how many packages that is, and whether any of them runs an install script
// (a native build, say). Each package's README quotes its row.
//
//   node scripts/install-size.mjs [--runs N] [--state-driver] [name...]
//
// --runs N         installs each package N times (default 3) and reports the median time
// --state-driver   adds a row for the reference server with better-sqlite3, the optional peer
//                  that only `--state` needs (it compiles from source where npm has no prebuilt)
// Times depend on the machine and the cache; compare rows of one run, not runs of two machines.
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  consumerRoot,
  installConsumer,
  packagesWithInstallScripts,
  packPackages,
  transcript,
} from "./release-check.mjs";
import { publicPackages } from "./workspace-packages.mjs";

/** Bytes of every file under a folder (apparent size) and the number of packages in it. */
export function nodeModulesSize(/** @type {string} */ dir) {
  let bytes = 0;
  let packages = 0;
  const walk = (/** @type {string} */ path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (path.endsWith("node_modules") && !entry.name.startsWith(".") && !entry.name.startsWith("@"))
          packages++;
        if (path.endsWith("node_modules") && entry.name.startsWith("@")) {
          packages += readdirSync(full).length;
        }
        walk(full);
      } else if (entry.isFile()) {
        bytes += statSync(full).size;
      }
    }
  };
  walk(dir);
  return { bytes, packages };
}

const median = (/** @type {number[]} */ values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

async function main() {
  const { values, positionals } = parseArgs({
    options: { runs: { type: "string", default: "3" }, "state-driver": { type: "boolean", default: false } },
    allowPositionals: true,
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs: expected a whole number from 1, found "${values.runs}"`);
  const all = publicPackages();
  const chosen = all.filter((p) => positionals.length === 0 || positionals.includes(p.manifest.name));
  if (chosen.length === 0) throw new Error(`no public package is named ${positionals.join(", ")}`);
  const byName = new Map(all.map((p) => [p.manifest.name, p]));
  const parent = consumerRoot();
  const tarballs = await packPackages(all, join(parent, "tarballs"));
  /** @type {{ label: string, seconds: number, bytes: number, packages: number, scripts: string[] }[]} */
  const rows = [];
  /** @param {string} label @param {import("./workspace-packages.mjs").WorkspacePackage} pkg @param {Record<string, string>} [extra] */
  const measure = async (label, pkg, extra) => {
    /** @type {number[]} */
    const times = [];
    let last = { dir: "", bytes: 0, packages: 0 };
    for (let i = 0; i < runs; i++) {
      const where = join(parent, `run-${rows.length}-${i}`);
      const started = performance.now();
      const { dir, result } = await installConsumer(pkg, tarballs, byName, where, {
        extraDependencies: extra,
      });
      times.push((performance.now() - started) / 1000);
      if (result.code !== 0) throw new Error(transcript(`npm install of ${label}`, result));
      last = { dir, ...nodeModulesSize(join(dir, "node_modules")) };
      if (i < runs - 1) rmSync(where, { recursive: true, force: true });
    }
    rows.push({
      label,
      seconds: median(times),
      bytes: last.bytes,
      packages: last.packages,
      scripts: packagesWithInstallScripts(last.dir),
    });
    console.error(`install-size: ${label}: ${times.map((t) => t.toFixed(1)).join(" s, ")} s`);
  };
  for (const pkg of chosen) await measure(pkg.manifest.name, pkg);
  const server = byName.get("@marketapi/reference-server");
  if (values["state-driver"] && server) {
    const range = server.manifest.peerDependencies?.["better-sqlite3"] ?? "latest";
    await measure("@marketapi/reference-server + better-sqlite3 (for --state)", server, {
      "better-sqlite3": range,
    });
  }
  console.log(`| package | npm install (median of ${runs}) | node_modules | packages | install scripts |`);
  console.log("| --- | ---: | ---: | ---: | --- |");
  for (const row of rows) {
    const mb = (row.bytes / 1e6).toFixed(1);
    console.log(
      `| ${row.label} | ${row.seconds.toFixed(1)} s | ${mb} MB | ${row.packages} | ${row.scripts.join(", ") || "none"} |`,
    );
  }
  console.log(
    `\nnode ${process.version}, npm cache warm (--prefer-offline), ${new Date().toISOString().slice(0, 10)}`,
  );
  rmSync(parent, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
