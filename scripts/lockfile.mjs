// Whether package-lock.json serves every platform. npm records the platform packages of a tool
// (Biome's and turbo's binaries, esbuild's, ...) as optional dependencies, and `npm ci` refuses a
// lockfile that lacks any of them: they are missing when the registry did not serve that version for
// some platform. A lockfile written on Linux then breaks `npm ci` on macOS and Windows, and on Linux too.

/**
 * Each optional dependency of a locked package that the lockfile does not hold where Node would
 * look for it (the package's own node_modules, then each enclosing one up to the root).
 */
/**
 * @typedef {{ version?: string, optionalDependencies?: Record<string, string>, [field: string]: unknown }} LockedPackage
 * @param {{ packages?: Record<string, LockedPackage> }} lock
 * @returns {{ from: string, name: string, range: string }[]}
 */
export function missingOptionalDependencies(lock) {
  const packages = lock.packages ?? {};
  const locked = (/** @type {string} */ from, /** @type {string} */ name) => {
    let dir = from;
    for (;;) {
      if (packages[`${dir ? `${dir}/` : ""}node_modules/${name}`]) return true;
      if (!dir) return false;
      const parent = dir.lastIndexOf("/node_modules/");
      dir = parent < 0 ? "" : dir.slice(0, parent);
    }
  };
  const missing = [];
  for (const [path, entry] of Object.entries(packages)) {
    for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
      if (!locked(path, name)) missing.push({ from: path || "(root)", name, range });
    }
  }
  return missing;
}
