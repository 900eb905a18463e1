// Test settings every package shares (each package's vitest.config.ts merges them).
//
// The suite runs on 2-core machines with turbo testing every package at once, often beside other
// work: a test that takes 2 s alone can take 40 s at a load of 20. So no verdict may depend on
// time. A test waits for what it needs (a line a process prints, a port that answers, a condition
// polled) and never for a fixed time; no test asserts on elapsed time (docs/architecture.md#tests).
// The time limits below are there to catch hangs only, and nothing in a test undercuts them: a
// test does not set a shorter limit of its own, and a helper that waits for readiness reads no
// clock (test/support's baseUrlOf, toolchain-compat's Prism, the contract runs' request timeout).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** How long a test, a hook or a poll may take before it counts as hung: 10 minutes. */
export const HANG_MS = 600_000;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A table-driven test over an empty table fails rather than passing with no test.
    // Each file's CPU and wall time go to test-results/costs/ (scripts/test-costs.mjs adds them up).
    setupFiles: [
      fileURLToPath(new URL("./vitest.non-empty-tables.ts", import.meta.url)),
      fileURLToPath(new URL("./vitest.file-cost.ts", import.meta.url)),
    ],
    // One process runs many test files, importing shared modules once: a fifth less CPU than a
    // fresh process per file (reference server 297 -> 233 s), and CPU bounds CI on 2 cores. So a
    // test file leaves no global state behind (no patched globals, no mutated shared spec model,
    // no process-wide settings); a setup file that patches guards itself, as
    // vitest.non-empty-tables.ts does. Every suite passed this way with its files shuffled
    // (`npx vitest run --sequence.shuffle.files`).
    isolate: false,
    testTimeout: HANG_MS,
    hookTimeout: HANG_MS,
    // expect.poll waits as long (vitest's default is 1 s) for a page or a process to catch up.
    expect: { poll: { timeout: HANG_MS } },
  },
});
