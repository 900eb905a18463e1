// One file-naming convention across the repository: kebab-case. A camelCase or PascalCase module
// name in one package makes a reader guess the spelling of every import there.
import { execFileSync } from "node:child_process";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../workspace-packages.mjs";

/** Names allowed whatever their case: conventional files of the ecosystem. */
const CONVENTIONAL = /^(README|CHANGELOG|LICENSE|CONTRIBUTING|SECURITY)(\.md)?$/;

/** The files among `paths` whose own name (not folder) is not kebab-case. */
function offendingNames(paths: readonly string[]): string[] {
  return paths.filter((path) => {
    const name = basename(path);
    return !CONVENTIONAL.test(name) && /[A-Z]/.test(name.split(".")[0] ?? "");
  });
}

function trackedSourceFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--", "packages", "scripts", "docs", "specs"], {
    cwd: root,
    encoding: "utf8",
  });
  return listed.split("\n").filter((path) => /\.(ts|mts|mjs|js|json|yaml|md)$/.test(path));
}

describe("file names", () => {
  it.each([
    { given: "packages/a/src/order-ops.ts", want: [] },
    { given: "packages/a/src/orderOps.ts", want: ["packages/a/src/orderOps.ts"] },
    { given: "packages/a/test/MarketData.test.ts", want: ["packages/a/test/MarketData.test.ts"] },
    { given: "packages/a/README.md", want: [] },
    { given: "packages/a/src/generated/spot-api.gen.ts", want: [] },
  ])("$given", ({ given, want }) => {
    expect(offendingNames([given])).toEqual(want);
  });

  it("every tracked source file of packages/, scripts/, docs/ and specs/ is named in kebab-case", () => {
    const files = trackedSourceFiles();
    expect(files.length, "git listed no source file: the check would pass over nothing").toBeGreaterThan(100);
    expect(offendingNames(files)).toEqual([]);
  });
});
