// What every public package needs for a release, read from the workspace: the project's LICENSE,
// a CHANGELOG.md with an entry for its version, internal dependency ranges that the published
// versions satisfy, and the build stamp and prepack that keep a stale dist/ from being published.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { staleness } from "../build-stamp.mjs";
import { publicPackages, root, workspacePackages } from "../workspace-packages.mjs";

const license = readFileSync(join(root, "LICENSE"), "utf8");
const versions = new Map(workspacePackages().map((p) => [p.manifest.name, p.manifest.version]));

describe.each(publicPackages().map((p) => [p.manifest.name, p] as const))("%s", (name, { dir, manifest }) => {
  it("carries the project's MIT LICENSE and says so", () => {
    expect(manifest.license).toBe("MIT");
    expect(readFileSync(join(dir, "LICENSE"), "utf8")).toBe(license);
  });

  it("has a CHANGELOG.md entry for its version", () => {
    const changelog = readFileSync(join(dir, "CHANGELOG.md"), "utf8");
    expect(changelog.startsWith(`# ${name}\n`)).toBe(true);
    expect(changelog).toContain(`\n## ${manifest.version}\n`);
  });

  it("depends on other @marketapi packages by ranges their current versions satisfy", () => {
    const internal = Object.entries({
      ...manifest.dependencies,
      ...manifest.devDependencies,
      ...manifest.peerDependencies,
    })
      .filter(([dep]) => versions.has(dep))
      .map(([dep, range]) => ({ dep, range, version: versions.get(dep)! }));
    expect(
      internal.filter(
        ({ range, version }) => semver.validRange(range) === null || !semver.satisfies(version, range),
      ),
    ).toEqual([]);
  });

  it("says in its README what installing it costs, as scripts/install-size.mjs measures it", () => {
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## Install size\n"));
    expect(section, "a section ## Install size").toMatch(/^\n## Install size\n/);
    expect(section).toContain("node scripts/install-size.mjs");
    expect(section).toMatch(
      new RegExp(`\\| ${name.replace("/", "\\/")} \\| \\d+\\.\\d s \\| \\d+\\.\\d MB \\| \\d+ \\| none \\|`),
    );
  });

  it("stamps its build and checks the stamp before it is packed", () => {
    expect(manifest.scripts?.build).toMatch(/&& node \.\.\/\.\.\/scripts\/build-stamp\.mjs write$/);
    expect(manifest.scripts?.prepack).toBe("node ../../scripts/build-stamp.mjs check");
    expect(manifest.publishConfig).toEqual({ access: "public" });
  });

  it("has a dist/ built from its current sources (npm test builds it)", () => {
    expect(existsSync(join(dir, "dist"))).toBe(true);
    expect(staleness(dir)).toBeNull();
  });
});

describe("versions", () => {
  it("every public package is in the one fixed Changesets group, so all share a version", () => {
    const config = JSON.parse(readFileSync(join(root, ".changeset", "config.json"), "utf8"));
    expect(config.fixed).toEqual([["@marketapi/*"]]);
    expect(publicPackages().every((p) => p.manifest.name.startsWith("@marketapi/"))).toBe(true);
    expect(new Set(publicPackages().map((p) => p.manifest.version)).size).toBe(1);
  });
});
