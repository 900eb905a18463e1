// Test settings every package shares (each package's vitest.config.ts merges them).
//
// The suite runs on 2-core machines with turbo testing every package at once, often beside other
// work: a test that takes 2 s alone can take 20 s there. Timeouts are set for that machine, so that
// only a hang fails on time. No test asserts on elapsed time; see docs/architecture.md#tests.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A table-driven test over an empty table fails rather than passing with no test.
    // Each file's CPU and wall time go to test-results/costs/ (scripts/test-costs.mjs adds them up).
    setupFiles: [
      fileURLToPath(new URL("./vitest.non-empty-tables.ts", import.meta.url)),
      fileURLToPath(new URL("./vitest.file-cost.ts", import.meta.url)),
    ],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // expect.poll waits this long (vitest's default is 1 s) for a page or a process to catch up.
    expect: { poll: { timeout: 30_000 } },
  },
});
