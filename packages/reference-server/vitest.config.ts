import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Builds dist/ when a source file is newer: the command-line tests run dist/cli.js.
      globalSetup: ["test/global-setup.ts"],
    },
  }),
);
