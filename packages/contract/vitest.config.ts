import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// The contract's suite is the longest of the repository's and ends last, alone, on a 2-core CI
// machine: two workers let its tail use both cores (the other packages' suites have ended by then).
export default mergeConfig(shared, defineConfig({ test: { maxWorkers: 2 } }));
