// The third-party tools this package runs, with the versions installed here (read from their
// package.json, so the compatibility table always names what was tested).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** The installed version of a package of this workspace. */
export function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    const file = join(dir, "package.json");
    try {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (manifest.name === name && manifest.version) return manifest.version;
    } catch {
      // not a package root yet: go up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`installedVersion: no package.json of ${name} above ${file}`);
    dir = parent;
  }
}

/** The client generators the suite runs, each with the packages it consists of. */
export const GENERATORS = [
  {
    id: "openapi-fetch",
    name: "openapi-typescript + openapi-fetch",
    packages: ["openapi-typescript", "openapi-fetch"],
  },
  { id: "hey-api", name: "@hey-api/openapi-ts (client-fetch)", packages: ["@hey-api/openapi-ts"] },
  { id: "orval", name: "orval (fetch client)", packages: ["orval"] },
] as const;

export type GeneratorId = (typeof GENERATORS)[number]["id"];

/** The tools that read the spec without generating code. */
export const SPEC_READERS = [
  { name: "Spectral, ruleset spectral:oas", packages: ["@stoplight/spectral-cli"] },
  { name: "swagger-parser validate", packages: ["@apidevtools/swagger-parser"] },
  { name: "Optic, strict OpenAPI validation", packages: ["@useoptic/openapi-io"] },
  { name: "Redocly lint, recommended-strict", packages: ["@redocly/cli"] },
  { name: "Prism validating proxy", packages: ["@stoplight/prism-cli"] },
] as const;

/** "openapi-typescript 7.13.0 + openapi-fetch 0.17.0". */
export function versionsOf(packages: readonly string[]): string {
  return packages.map((name) => `${name} ${installedVersion(name)}`).join(" + ");
}
