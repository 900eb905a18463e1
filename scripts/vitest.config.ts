// The repository's own checks that belong to no package (release check, lockfile, package
// imports), run by `npm test` after every package is built and tested.
import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      root: new URL(".", import.meta.url).pathname,
      include: ["test/**/*.test.ts"],
    },
  }),
);
