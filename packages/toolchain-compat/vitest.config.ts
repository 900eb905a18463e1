import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generators, tsc and Prism run as real processes on a shared 2-core machine.
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
