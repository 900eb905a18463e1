import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { missingOptionalDependencies } from "../lockfile.mjs";
import { readJson, root } from "../workspace-packages.mjs";

/** The repository's lockfile and those of the tools installed on demand (tools/<name>). */
const lockfiles = [
  "package-lock.json",
  ...readdirSync(join(root, "tools"))
    .map((tool) => `tools/${tool}/package-lock.json`)
    .filter((path) => existsSync(join(root, path))),
];

describe.each(lockfiles)("%s", (lockfile) => {
  it("holds every platform's package of every tool, so that npm ci accepts it on any machine", () => {
    const missing = missingOptionalDependencies(readJson(join(root, lockfile)));
    expect(
      missing.map(({ from, name, range }) => `${from} needs ${name}@${range}, which the lockfile lacks`),
      "pick versions whose platform packages the registry serves (npm view <platform package> versions)",
    ).toEqual([]);
  });
});

describe("the completeness check", () => {
  it("sees a platform package the registry did not serve", () => {
    const lock = {
      packages: {
        "": { devDependencies: { tool: "1.0.0" } },
        "node_modules/tool": {
          version: "1.0.0",
          optionalDependencies: { "@tool/linux-x64": "1.0.0", "@tool/darwin-arm64": "1.0.0" },
        },
        "node_modules/@tool/linux-x64": { version: "1.0.0", optional: true, os: ["linux"] },
        "node_modules/a/node_modules/nested": {
          version: "1.0.0",
          optionalDependencies: { "@tool/linux-x64": "1.0.0" },
        },
      },
    };
    expect(missingOptionalDependencies(lock)).toEqual([
      { from: "node_modules/tool", name: "@tool/darwin-arm64", range: "1.0.0" },
    ]);
  });
});
