import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The command-line tests start real processes (the generator, tsc, tsx), several at a time.
    testTimeout: 30_000,
    // Builds dist/ (and the client and validators packages the consumer tests import) when stale.
    globalSetup: ["test/global-setup.ts"],
  },
});
