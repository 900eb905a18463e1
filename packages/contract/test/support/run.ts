// The tester as the tests run it. Its 5 s per request is for real networks; the tests' servers
// share a machine of 2 cores with turbo's other packages, at load 20 at times, where a slow answer
// is the machine's and not the target's. A test whose subject is the time limit passes its own
// `timeoutMs` (marked `time limit under test`); scripts/test/time-limits.test.ts holds that every
// run of the tester in a test comes through here.
import { type ContractOptions, type ContractResult, runContract as runTester } from "../../src/index.js";

/** A request's time limit in the tests: the suite's hang limit (HANG_MS, vitest.shared.ts). */
export const LOADED_MACHINE_TIMEOUT_MS = 600_000;

export function runContract(options: ContractOptions = {}): Promise<ContractResult> {
  return runTester({ timeoutMs: LOADED_MACHINE_TIMEOUT_MS, ...options });
}
