// The repository's own checks that belong to no package (release check, lockfile, package
// imports), run by `npm test` after every package is built and tested.
import { availableParallelism } from "node:os";
import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      root: new URL(".", import.meta.url).pathname,
      include: ["test/**/*.test.ts"],
      // These run alone, after every package's tests, and most of their time is spent waiting for
      // npm, git and tsc: vitest's default of one worker fewer than the cores left one of a
      // 2-core machine idle for the whole phase. Each file works in scratch folders of its own.
      maxWorkers: Math.max(2, availableParallelism() - 1),
    },
  }),
);
