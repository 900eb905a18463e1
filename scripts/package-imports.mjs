// What a package's shipped files import, and which of those imports a consumer's install would not
// satisfy. Inside the monorepo every package sees every dependency, so an import of a package that
// is only a devDependency (or not declared at all) works here and fails for a consumer with
// ERR_MODULE_NOT_FOUND, or, in a .d.ts, with a type error in the consumer's build.
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join } from "node:path";
import ts from "typescript";
import { packedFiles, runtimeDependencyNames } from "./workspace-packages.mjs";

/** Files whose imports run or type-check in a consumer's project. */
const CODE_FILE = /\.(?:[cm]?js|d\.[cm]?ts)$/;

/** Every module specifier a JavaScript or declaration file names: static and dynamic imports, re-exports, require() and type references. */
export function specifiersOf(/** @type {string} */ text) {
  const info = ts.preProcessFile(text, true, true);
  return [...info.importedFiles, ...info.typeReferenceDirectives].map((ref) => ref.fileName);
}

/**
 * The package a bare specifier resolves into ("@scope/name/sub" → "@scope/name"), or null for relative, absolute, URL and built-in specifiers.
 * @param {string} specifier
 * @returns {string | null}
 */
export function packageOf(specifier) {
  if (/^[./]/.test(specifier) || /^[a-z][a-z0-9+.-]*:/i.test(specifier) || isBuiltin(specifier)) return null;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/**
 * The imports of a package's shipped files that name a package it does not declare as a
 * dependency, peer or optional dependency (its own name is allowed: self-reference).
 * `files` defaults to what `npm pack` would ship.
 */
/**
 * @typedef {{ file: string, specifier: string, name: string, how: string }} UndeclaredImport
 * @param {import("./workspace-packages.mjs").WorkspacePackage} pkg
 * @param {string[]} [files]
 * @returns {UndeclaredImport[]}
 */
export function undeclaredImports({ dir, manifest }, files = packedFiles(dir)) {
  const declared = runtimeDependencyNames(manifest);
  const code = files.filter((f) => CODE_FILE.test(f)).sort();
  // A package that packs no code (dist/ not built, say) would pass with nothing read.
  if (code.length === 0) {
    throw new Error(
      `${manifest.name}: packs no JavaScript or declaration file (${files.length} files), so there are no imports to check; run \`npm run build\``,
    );
  }
  const found = [];
  for (const file of code) {
    for (const specifier of specifiersOf(readFileSync(join(dir, file), "utf8"))) {
      const name = packageOf(specifier);
      if (name === null || name === manifest.name || declared.has(name)) continue;
      const how = manifest.devDependencies?.[name] ? "only a devDependency" : "not declared";
      found.push({ file, specifier, name, how });
    }
  }
  return found;
}

/**
 * @param {import("./workspace-packages.mjs").Manifest} manifest
 * @param {UndeclaredImport[]} found
 */
export function describeUndeclared(manifest, found) {
  return found.map(
    ({ file, specifier, name, how }) =>
      `${manifest.name}: ${file} imports "${specifier}", but "${name}" is ${how}; add it to "dependencies" (or "peerDependencies") in its package.json`,
  );
}
