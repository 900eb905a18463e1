import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Builds dist/ (and the client and validators packages the consumer tests import) when stale.
      globalSetup: ["test/global-setup.ts"],
    },
  }),
);
