// The resolve hook of register.mjs: `@marketapi/<name>[/<subpath>]` → the source file its export
// is built from. An export's target `./<out>/<path>.js` (dist/, lib/: whatever folder the build
// writes) is built from `./src/<path>.ts`; an export without such a source (a bundled JSON file)
// resolves as usual, to what the package's build wrote.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { workspacePackages } from "../workspace-packages.mjs";

/** @type {Map<string, { dir: string, exports: unknown }>} */
const packages = new Map(
  workspacePackages().map(({ dir, manifest }) => [manifest.name, { dir, exports: manifest.exports }]),
);

/** The package name and the export subpath (".", "./model") of a bare specifier. */
function split(/** @type {string} */ specifier) {
  const parts = specifier.split("/");
  const nameLength = specifier.startsWith("@") ? 2 : 1;
  const subpath = parts.slice(nameLength).join("/");
  return { name: parts.slice(0, nameLength).join("/"), subpath: subpath === "" ? "." : `./${subpath}` };
}

/** The `default` (or `import`) target of an export entry, following nested conditions. */
function target(/** @type {unknown} */ entry) {
  if (typeof entry === "string") return entry;
  if (entry === null || typeof entry !== "object") return undefined;
  const conditions = /** @type {Record<string, unknown>} */ (entry);
  return target(conditions.import ?? conditions.default);
}

/** The source file of a workspace package's export, or undefined to resolve it as usual. */
export function sourceOf(/** @type {string} */ specifier) {
  const { name, subpath } = split(specifier);
  const pkg = packages.get(name);
  if (!pkg || pkg.exports === null || typeof pkg.exports !== "object") return undefined;
  const built = target(/** @type {Record<string, unknown>} */ (pkg.exports)[subpath]);
  const match = built === undefined ? null : /^\.\/[^/]+\/(.+)\.js$/.exec(built);
  if (!match) return undefined;
  const source = join(pkg.dir, "src", `${match[1]}.ts`);
  return existsSync(source) ? source : undefined;
}

/** @type {import("node:module").ResolveHook} */
export async function resolve(specifier, context, next) {
  const source = sourceOf(specifier);
  if (source === undefined) return next(specifier, context);
  return { url: pathToFileURL(source).href, format: "module", shortCircuit: true };
}
