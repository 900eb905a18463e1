// The third-party tools this package runs, with the versions installed here (read from their
// package.json, so the compatibility table always names what was tested).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const packageDir = new URL("../", import.meta.url).pathname;

/** The installed version of a package, found the way Node finds it: node_modules folders upward. */
export function installedVersion(name: string): string {
  for (let dir = packageDir; ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8"));
      if (typeof manifest.version === "string") return manifest.version;
    } catch {
      // not installed in this node_modules: look further up
    }
    if (dirname(dir) === dir)
      throw new Error(`installedVersion: ${name} is not installed above ${packageDir}`);
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
