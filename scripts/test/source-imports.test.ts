// scripts/source-imports: a workspace package's export resolves to the source file it is built
// from, so that `npm run api:check` and the gate of `npm test` run before and without a build.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceOf } from "../source-imports/hooks.mjs";
import { root } from "../workspace-packages.mjs";

describe("sourceOf", () => {
  it.each([
    { given: "@marketapi/diff", want: "packages/diff/src/index.ts" },
    { given: "@marketapi/spec/model", want: "packages/spec/src/model/index.ts" },
    { given: "@marketapi/spec-loader/input", want: "packages/spec-loader/src/input.ts" },
    { given: "@marketapi/docs", want: "packages/docs/src/index.ts" },
  ])("$given → $want", ({ given, want }) => {
    expect(sourceOf(given)).toBe(join(root, want));
    expect(existsSync(join(root, want))).toBe(true);
  });

  it.each([
    { given: "@marketapi/spec/openapi.json", why: "a file the build writes, with no source of its own" },
    { given: "@marketapi/spec/no-such-export", why: "an export the package does not have" },
    { given: "yaml", why: "not a workspace package" },
    { given: "node:fs", why: "a built-in" },
  ])("$given resolves as usual: $why", ({ given }) => {
    expect(sourceOf(given)).toBeUndefined();
  });
});
