import { defineConfig, mergeConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import shared from "../../vitest.shared.js";

/**
 * The suites that take longest (`node scripts/test-costs.mjs` at the root), longest first. A fresh
 * clone has no timings, so vitest would start the largest files first, and the longest suite,
 * whose file is small, would start late and end alone after every other.
 */
const LONGEST_FIRST = [
  "test/mutations.test.ts",
  "test/real-servers.test.ts",
  "test/persistence.test.ts",
  "test/no-false-alarms.test.ts",
];

/** Vitest's order (by its timings when it has them), with the longest suites moved to the front. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    return sorted
      .map((file, i) => ({ file, i }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i)
      .map(({ file }) => file);
  }
}

// The contract's suite is the longest of the repository's and ends last on a 2-core CI machine.
// Its tests wait more than they compute (processes started and stopped, rate windows, timeouts
// under test: 695 s of CPU in 3566 s of its files' time on the last CI run), so three workers
// overlap those waits.
export default mergeConfig(
  shared,
  defineConfig({ test: { maxWorkers: 3, sequence: { sequencer: LongestFirst } } }),
);
