import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Generators, tsc and Prism run as real processes on a shared 2-core machine.
      testTimeout: 240_000,
    },
  }),
);
