// The shared setup file (vitest.non-empty-tables.ts) makes a table-driven test over an empty table
// fail: here in a scratch test file run by vitest with the repository's shared settings.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../release-check.mjs";
import { root } from "../workspace-packages.mjs";

const scratch = mkdtempSync(join(tmpdir(), "marketapi-tables-"));
mkdirSync(join(scratch, "test"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function vitestOn(test: string) {
  writeFileSync(
    join(scratch, "vitest.config.ts"),
    `export { default } from ${JSON.stringify(join(root, "vitest.shared.ts"))};\n`,
  );
  writeFileSync(
    join(scratch, "test", "table.test.ts"),
    `import { describe, expect, it, test } from "vitest";\n${test}\n`,
  );
  return run(join(root, "node_modules", ".bin", "vitest"), ["run", "--root", scratch], {
    cwd: scratch,
    env: { NO_COLOR: "1" },
  });
}

describe("a table-driven test", () => {
  it.each([
    { given: "it.each([])", code: 'it.each([] as string[])("files %s", () => expect(1).toBe(1));' },
    { given: "test.each([])", code: 'test.each([] as string[])("files %s", () => expect(1).toBe(1));' },
    {
      given: "describe.each([])",
      code: 'describe.each([] as string[])("files %s", () => { it("x", () => {}); });',
    },
  ])("over an empty table fails: $given", async ({ code }) => {
    const result = await vitestOn(`it("another test", () => expect(1).toBe(1));\n${code}`);
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('("files %s") got an empty table');
  });

  it("over a table with rows runs each row", async () => {
    const result = await vitestOn('it.each(["a", "b"])("row %s", (row) => expect(row).toMatch(/^[ab]$/));');
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/2 passed/);
  });
});
