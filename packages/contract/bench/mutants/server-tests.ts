/**
 * The server's own tests as a second judge of a mutant the tester let through: its unit,
 * property and differential tests run with the mutated source served in place of the file
 * (a vite plugin's load hook; vitest compiles the rest as usual). A mutant no server test kills
 * either is a candidate equivalent, classified by hand (equivalents.json).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";

/**
 * The server tests that judge a mutant: engine, HTTP, signing, parameters and the differential
 * tests (about 17 s of CPU together). Left out: those that build large databases or measure
 * growth (book-size, history-rows), and the long property and fuzz runs (properties, fuzz,
 * time-bounds, client-order-ids: 55 s more), which on a shared 2-core machine would make this
 * pass take hours.
 */
export const SERVER_TESTS = [
  "test/engine/book.test.ts",
  "test/engine/client-order-ids.test.ts",
  "test/engine/decimal.test.ts",
  "test/engine/filters.test.ts",
  "test/engine/formats.test.ts",
  "test/engine/history.test.ts",
  "test/engine/journal.test.ts",
  "test/engine/liquidity.test.ts",
  "test/engine/market-data.test.ts",
  "test/engine/matching.test.ts",
  "test/engine/order-params.test.ts",
  "test/engine/orders.test.ts",
  "test/engine/state.test.ts",
  "test/http.test.ts",
  "test/auth.test.ts",
  "test/hmac.test.ts",
  "test/signing-vectors.test.ts",
  "test/order-json.test.ts",
  "test/live-extras.test.ts",
  "test/behaviour-extensions.test.ts",
  "test/order-params-differential.test.ts",
  "test/paging-differential.test.ts",
];

export interface ServerTestVerdict {
  killed: boolean;
  /** The first failing test, when one failed. */
  failing?: string;
  exitCode: number | null;
}

/** Runs the server's tests (those of `tests` that exist) with the mutated source of `file`. */
export function runServerTests(
  packageDir: string,
  mutant: { file: string; source: string },
  scratch: string,
  tests: readonly string[],
  hardLimitMs: number,
): Promise<ServerTestVerdict> {
  const sourceFile = join(scratch, "mutant.ts");
  writeFileSync(sourceFile, mutant.source);
  const config = join(scratch, "vitest.mutant.config.mjs");
  const target = join(packageDir, mutant.file);
  writeFileSync(
    config,
    [
      'import { readFileSync } from "node:fs";',
      'import { mergeConfig } from "vitest/config";',
      `import base from ${JSON.stringify(pathToFileURL(join(packageDir, "vitest.config.ts")).href)};`,
      `const target = ${JSON.stringify(target)};`,
      `const source = readFileSync(${JSON.stringify(sourceFile)}, "utf8");`,
      "export default mergeConfig(base, {",
      `  root: ${JSON.stringify(packageDir)},`,
      '  plugins: [{ name: "marketapi-mutant", enforce: "pre", load: (id) => (id.split("?")[0] === target ? source : null) }],',
      "});",
      "",
    ].join("\n"),
  );
  const args = [
    "run",
    "--config",
    config,
    "--root",
    packageDir,
    "--bail",
    "1",
    // One worker: several mutants are judged side by side (--jobs), each vitest on one core.
    "--maxWorkers",
    "1",
    "--reporter",
    "dot",
    ...tests,
  ];
  const child = spawn(process.execPath, [vitestEntry(packageDir), ...args], {
    cwd: packageDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "1" },
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    output += c.toString();
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), hardLimitMs);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(killer);
      // Colour codes out; the first FAIL line names the failing test.
      const plain = stripVTControlCharacters(output);
      const failing = /FAIL\s+(.+)/.exec(plain)?.[1]?.trim().slice(0, 200);
      const killed = signal !== null || code !== 0;
      resolve({
        killed,
        exitCode: code,
        ...(failing ? { failing } : signal ? { failing: `timed out (${signal})` } : {}),
      });
    });
  });
}

/** vitest's command script, wherever npm hoisted it for the package. */
function vitestEntry(packageDir: string): string {
  const require = createRequire(join(packageDir, "package.json"));
  return join(dirname(require.resolve("vitest/package.json")), "vitest.mjs");
}
