// The repository's own checks that belong to no package (release check, lockfile, package
// imports), run by `npm test` as turbo's root task test:repository once every package is built,
// beside the package tests.
import { availableParallelism } from "node:os";
import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      root: new URL(".", import.meta.url).pathname,
      include: ["test/**/*.test.ts"],
      // Most of their time is spent waiting for npm, git and tsc: vitest's default of one worker
      // fewer than the cores would run them one file at a time on a 2-core machine. Each file
      // works in scratch folders of its own.
      maxWorkers: Math.max(2, availableParallelism() - 1),
    },
  }),
);
