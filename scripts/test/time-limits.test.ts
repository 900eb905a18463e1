// No test's verdict may depend on how busy the machine is (vitest.shared.ts): the suite's time
// limits catch hangs only, and no test sets a shorter one of its own. This scans every test file
// for the ways a shorter limit is written: a number after an it/test/hook body (`}, 60_000)`), a
// `timeout` option, Playwright's default timeout, a `*TIMEOUT*` constant, a child process killed
// after a time. A limit that is itself under test (a server's header timeout, the tester's
// per-request timeout against a server that never answers) says so on its line with the mark
// `time limit under test`.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { HANG_MS } from "../../vitest.shared.js";
import { root } from "../workspace-packages.mjs";

const MARK = "time limit under test";

/** Every TypeScript file under the packages' test folders and scripts/test, and the vitest configs. */
function testFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "golden" || entry.name === "fixtures") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs)$/.test(entry.name)) files.push(path);
    }
  };
  for (const pkg of readdirSync(join(root, "packages"))) {
    const dir = join(root, "packages", pkg);
    try {
      walk(join(dir, "test"));
    } catch {
      // a package without tests
    }
    files.push(
      ...readdirSync(dir)
        .filter((f) => f.startsWith("vitest.config"))
        .map((f) => join(dir, f)),
    );
  }
  walk(join(root, "scripts", "test"));
  files.push(join(root, "scripts", "vitest.config.ts"));
  // This file's table of examples is not a test's limit.
  return files.filter((file) => file !== fileURLToPath(import.meta.url));
}

const number = String.raw`([0-9][0-9_]*(?:\.[0-9]+)?)`;
/** Ways a time limit is written, each with the group that holds its milliseconds. */
const PATTERNS: { what: string; pattern: RegExp }[] = [
  {
    what: "a limit after a test or hook body",
    pattern: new RegExp(String.raw`^\s*\},\s*${number}\s*\);?\s*$`),
  },
  { what: "a limit as the last argument of a test", pattern: new RegExp(String.raw`^\s*${number},\s*$`) },
  { what: "a timeout option", pattern: new RegExp(String.raw`\btimeout(?:Ms)?\s*:\s*${number}`, "i") },
  {
    what: "a default timeout",
    pattern: new RegExp(String.raw`(?:setDefault\w*Timeout|testTimeout|hookTimeout)\W+${number}`),
  },
  { what: "a timeout constant", pattern: new RegExp(String.raw`\b\w*TIMEOUT\w*\s*=\s*${number}`) },
];

/** A limit a line sets below the hang limit, or undefined. */
function shortLimit(line: string, next = ""): { what: string; ms: number } | undefined {
  if (line.includes(MARK)) return undefined;
  for (const { what, pattern } of PATTERNS) {
    const match = pattern.exec(line);
    if (!match?.[1]) continue;
    const ms = Number(match[1].replaceAll("_", ""));
    // A bare number on its line is a test's limit only when the call closes right after it, and
    // a limit of a second or more (smaller ones there are statuses and counts).
    if (what === "a limit as the last argument of a test" && (!/^\s*\);?\s*$/.test(next) || ms < 1000))
      continue;
    if (ms > 0 && ms < HANG_MS) return { what, ms };
  }
  return undefined;
}

describe("time limits in tests", () => {
  it.each([
    { given: "  }, 60_000);", want: 60000 },
    { given: "    90_000,", next: "  );", want: 90000 },
    { given: "    1,", next: "    2,", want: undefined },
    { given: "      200,", next: "    );", want: undefined },
    { given: "      timeout: 20_000,", want: 20000 },
    { given: "  it('x', { timeout: 30_000 }, async () => {", want: 30000 },
    { given: "  context.setDefaultTimeout(90_000);", want: 90000 },
    { given: "      testTimeout: 240_000,", want: 240000 },
    { given: "const STEP_TIMEOUT = 60_000;", want: 60000 },
    { given: "    const child = spawn(cmd, args, { timeout: timeoutMs });", want: undefined },
    { given: "  }, 900_000);", want: undefined },
    { given: "  context.setDefaultTimeout(0);", want: undefined },
    {
      given: `    runContract({ baseUrl, timeoutMs: 300 }); // ${MARK}: a server that never answers`,
      want: undefined,
    },
  ])("$given → $want", ({ given, next, want }) => {
    expect(shortLimit(given, next)?.ms).toBe(want);
  });

  it("no test file sets a limit below the hang limit (vitest.shared.ts HANG_MS), unless the limit is under test", () => {
    const found: string[] = [];
    for (const file of testFiles()) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, index) => {
        const limit = shortLimit(line, lines[index + 1]);
        if (limit)
          found.push(`${relative(root, file)}:${index + 1}: ${limit.what} of ${limit.ms} ms: ${line.trim()}`);
      });
    }
    expect(
      found,
      `wait for readiness instead (a line a process prints, a condition polled with expect.poll), and leave the limit to vitest.shared.ts; if the limit is what the test is about, say "${MARK}" on its line`,
    ).toEqual([]);
  });

  it("no contract test runs the tester with its own per-request limit (5 s, for real networks)", () => {
    const tests = join(root, "packages", "contract", "test");
    const support = join(tests, "support", "run.ts");
    const direct = testFiles().filter(
      (file) =>
        file.startsWith(tests) &&
        file !== support &&
        /import \{[^}]*\brunContract\b[^}]*\} from "(\.\.\/)+src\/index\.js"/.test(
          readFileSync(file, "utf8"),
        ),
    );
    expect(
      direct.map((file) => relative(root, file)),
      "import runContract from test/support/run.ts, which gives the tests' servers the hang limit",
    ).toEqual([]);
  });

  it("every folder tests are run from has a vitest config with the shared limits (else vitest's 5 s applies)", () => {
    // `npx vitest run <file>` takes the config of the folder it runs in: a package's folder, or the
    // repository's root for scripts/test (the root's config is scripts/vitest.config.ts).
    const folders = [
      root,
      join(root, "scripts"),
      ...readdirSync(join(root, "packages"))
        .map((pkg) => join(root, "packages", pkg))
        .filter((dir) => readdirSync(dir).includes("test")),
    ];
    const missing = folders.filter((dir) => {
      const config = readdirSync(dir).find((f) => /^vitest\.config\.m?ts$/.test(f));
      if (!config) return true;
      const text = readFileSync(join(dir, config), "utf8");
      return !/vitest\.shared\.js|scripts\/vitest\.config\.js/.test(text);
    });
    expect(
      missing.map((dir) => relative(root, dir) || "."),
      "add a vitest.config.ts that merges vitest.shared.ts",
    ).toEqual([]);
  });
});
