// Tools that only a test or a bench needs (a local registry, Prism), kept out of the workspace's
// devDependencies so that a normal install stays small and quiet. Each has a folder in tools/
// with a package.json and a lockfile; `ensureTool(name)` installs it with `npm ci` (from the npm
// cache when it can) into a cache folder outside the repository, once per lockfile, and returns
// that folder. `node scripts/tools.mjs NAME` does the same from the command line.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { root } from "./workspace-packages.mjs";

/** Where tools are installed: $MARKETAPI_TOOLS_CACHE, else $XDG_CACHE_HOME/marketapi-tools, else ~/.cache/marketapi-tools. */
export function toolsCache() {
  return (
    process.env.MARKETAPI_TOOLS_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "marketapi-tools")
  );
}

/** Installs the tool of tools/<name> unless its lockfile's install is there already; returns its folder. */
export function ensureTool(/** @type {string} */ name) {
  const source = join(root, "tools", name);
  const files = ["package.json", "package-lock.json"];
  const hash = createHash("sha256");
  for (const file of files) hash.update(readFileSync(join(source, file)));
  const dir = join(toolsCache(), `${name}-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(join(dir, "node_modules"))) return dir;
  mkdirSync(toolsCache(), { recursive: true });
  const staging = mkdtempSync(join(toolsCache(), `.${name}-`));
  for (const file of files) copyFileSync(join(source, file), join(staging, file));
  console.error(`tools: installing ${name} (once) into ${dir}`);
  const install = spawnSync(
    "npm",
    ["ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
    {
      cwd: staging,
      stdio: ["ignore", 2, 2],
    },
  );
  if (install.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`tools: npm ci of tools/${name} failed (exit ${install.status})`);
  }
  try {
    renameSync(staging, dir);
  } catch (error) {
    // Another process installed the same lockfile meanwhile; keep its copy.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(dir, "node_modules"))) throw error;
  }
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const name = process.argv[2];
  if (name === undefined) {
    console.error("usage: node scripts/tools.mjs NAME   (a folder of tools/)");
    process.exit(2);
  }
  console.log(ensureTool(name));
}
