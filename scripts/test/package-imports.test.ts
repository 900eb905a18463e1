import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeUndeclared, packageOf, specifiersOf, undeclaredImports } from "../package-imports.mjs";
import { publicPackages, workspacePackages } from "../workspace-packages.mjs";

describe("packageOf", () => {
  it.each([
    { given: "yaml", want: "yaml" },
    { given: "ajv/dist/2020.js", want: "ajv" },
    { given: "@marketapi/spec/openapi.json", want: "@marketapi/spec" },
    { given: "@redocly/openapi-core", want: "@redocly/openapi-core" },
    { given: "node:fs", want: null },
    { given: "fs/promises", want: null },
    { given: "./bundle.js", want: null },
    { given: "../dist/cli.js", want: null },
    { given: "/abs/file.js", want: null },
    { given: "data:text/javascript,1", want: null },
  ])("$given → $want", ({ given, want }) => {
    expect(packageOf(given)).toBe(want);
  });
});

describe("specifiersOf", () => {
  it("finds static, dynamic, re-exported, required and type-referenced modules, minified or not", () => {
    const text = [
      '/// <reference types="some-types" />',
      'import{parse as a}from"yaml";export*from"./x.js";',
      'const g = await import("openapi-typescript");',
      'const r = require("ajv/dist/2020.js");',
      'export { x } from "@scope/pkg/sub";',
      'import type { T } from "type-only";',
    ].join("\n");
    expect(specifiersOf(text).sort()).toEqual(
      [
        "./x.js",
        "@scope/pkg/sub",
        "ajv/dist/2020.js",
        "openapi-typescript",
        "some-types",
        "type-only",
        "yaml",
      ].sort(),
    );
  });
});

describe("every public package declares what its shipped files import", () => {
  it.each(publicPackages().map((p) => [p.manifest.name, p] as const))("%s", (_name, pkg) => {
    expect(describeUndeclared(pkg.manifest, undeclaredImports(pkg))).toEqual([]);
  });
});

describe("an undeclared import is found", () => {
  const scratch = mkdtempSync(join(tmpdir(), "marketapi-imports-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("in a scratch copy of @marketapi/spec whose dist imports yaml (a devDependency) again", () => {
    const spec = publicPackages().find((p) => p.manifest.name === "@marketapi/spec")!;
    const copy = join(scratch, "spec");
    cpSync(spec.dir, copy, { recursive: true, filter: (src) => !src.includes("node_modules") });
    writeFileSync(
      join(copy, "dist", "bundle.js"),
      'import { parse } from "yaml";\nexport const load = parse;\n',
    );
    writeFileSync(join(copy, "dist", "lazy.js"), 'export const later = () => import("not-a-dependency");\n');
    const found = undeclaredImports({ dir: copy, manifest: spec.manifest });
    expect(describeUndeclared(spec.manifest, found)).toEqual([
      '@marketapi/spec: dist/bundle.js imports "yaml", but "yaml" is only a devDependency; add it to "dependencies" (or "peerDependencies") in its package.json',
      '@marketapi/spec: dist/lazy.js imports "not-a-dependency", but "not-a-dependency" is not declared; add it to "dependencies" (or "peerDependencies") in its package.json',
    ]);
  });
});

describe("a package that packs no code", () => {
  it("is refused rather than passed with no import read", () => {
    const spec = publicPackages().find((p) => p.manifest.name === "@marketapi/spec")!;
    expect(() => undeclaredImports(spec, ["package.json", "README.md"])).toThrow(
      "@marketapi/spec: packs no JavaScript or declaration file (2 files)",
    );
  });
});

describe("a workspace whose packages glob finds no package", () => {
  it("is refused rather than giving every check an empty list", () => {
    const scratch = mkdtempSync(join(tmpdir(), "marketapi-workspace-"));
    try {
      mkdirSync(join(scratch, "packages"));
      writeFileSync(join(scratch, "package.json"), JSON.stringify({ workspaces: ["packages/*"] }));
      expect(() => workspacePackages(scratch)).toThrow(
        'workspaces (["packages/*"]): no folder with a package.json found',
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
