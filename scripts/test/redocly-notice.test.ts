// scripts/redocly.mjs: the Redocly CLI as the builds run it, without the boxed Node 20
// end-of-life notice that the CLI prints at each start on Node 20 (the README says it once).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withoutNode20Notice } from "../redocly.mjs";
import { run } from "../release-check.mjs";
import { root } from "../workspace-packages.mjs";

const box = (...words: string[]) =>
  [
    "",
    `    ╔${"═".repeat(20)}╗`,
    ...words.map((w) => `    ║  ${w.padEnd(18)}║`),
    `    ╚${"═".repeat(20)}╝`,
    "",
  ].join("\n");
const NOTICE = box(
  "Deprecation warning: Node.js 20 support is ending",
  "Node.js 20 reached end-of-life on April 30, 2026.",
);

describe("withoutNode20Notice", () => {
  it.each([
    { given: `${NOTICE}\nvalidating spec.yaml...\n`, want: "\nvalidating spec.yaml...\n" },
    { given: "validating spec.yaml...\n", want: "validating spec.yaml...\n" },
    { given: `${box("Another notice")}\nrest\n`, want: `${box("Another notice")}\nrest\n` },
    { given: `${box("Another notice")}\n${NOTICE}\nrest\n`, want: `${box("Another notice")}\n\nrest\n` },
    { given: "╔ a box that never ends\n", want: "╔ a box that never ends\n" },
  ])("$#: keeps everything but the Node 20 notice", ({ given, want }) => {
    expect(withoutNode20Notice(given)).toBe(want);
  });
});

describe("node scripts/redocly.mjs", () => {
  it("runs the CLI of the package it runs in, with its exit code and output, and no Node 20 notice", async () => {
    const version = await run(process.execPath, [join(root, "scripts", "redocly.mjs"), "--version"], {
      cwd: join(root, "packages", "spec"),
    });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(version.stderr).not.toContain("end-of-life");
    const bad = await run(
      process.execPath,
      [join(root, "scripts", "redocly.mjs"), "lint", "no-such-file.yaml"],
      {
        cwd: join(root, "packages", "spec"),
      },
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stdout + bad.stderr).toContain("no-such-file.yaml");
  });
});
