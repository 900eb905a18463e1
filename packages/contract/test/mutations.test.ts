// Mutation testing: one injected fault at a time, each judged by a focused run of the checks that
// must catch it, a full run where the focused one misses, and a full run for one fault of each
// check (test/support/mutation.ts says why). `MUTATION_ONLY=<part of a name>` runs some faults;
// `MUTATION_RUN=full` judges every fault in a full run.
import { DEMO_CREDENTIALS } from "@marketapi/reference-server";
import { afterAll, describe, expect, it } from "vitest";
import { reportText } from "../src/report/text.js";
import { behaviourFaults } from "./support/behaviour-faults.js";
import { engineFaults } from "./support/engine-faults.js";
import { explorationFaults } from "./support/exploration-faults.js";
import { faults } from "./support/faults.js";
import { meaningFaults } from "./support/meaning-faults.js";
import {
  catchReport,
  everyFaultInFull,
  focusedChecks,
  fullRunSample,
  judgeFault,
  type MutationOutcome,
  runAgainstFault,
  unseenCatches,
} from "./support/mutation.js";
import { relationFaults } from "./support/relation-faults.js";

// The demo credentials sign the requests of the faults that re-sign.
const catalog = [
  ...faults(DEMO_CREDENTIALS),
  ...behaviourFaults(DEMO_CREDENTIALS),
  ...explorationFaults(DEMO_CREDENTIALS),
  ...meaningFaults(DEMO_CREDENTIALS),
  ...engineFaults(DEMO_CREDENTIALS),
  ...relationFaults(),
];
const only = process.env.MUTATION_ONLY;
const selected = only ? catalog.filter((f) => f.name.includes(only)) : catalog;
const sample = everyFaultInFull ? [] : fullRunSample(selected);

const outcomes: MutationOutcome[] = [];
const missedMessage = (outcome: MutationOutcome, fault: (typeof catalog)[number]) =>
  `${fault.name} (${fault.description}) should fail one of ${fault.caughtBy.join(", ")}; failed in a ${outcome.scope} run: ${outcome.failedChecks.join(", ") || "none"} (exit ${outcome.exitCode})`;

describe("mutation testing: one injected fault at a time", () => {
  it("the proxy without a fault changes nothing (exit 0)", async () => {
    const outcome = await runAgainstFault(undefined);
    expect(outcome.exitCode, reportText(outcome.result, { color: false })).toBe(0);
  });

  it.each(selected.map((f) => [f.name, f] as const))("catches %s", async (_name, fault) => {
    const outcome = await judgeFault(fault);
    outcomes.push(outcome);
    expect(outcome.caught, missedMessage(outcome, fault)).toBe(true);
    // Every check that names this fault in its seenToCatch is seen to fail on it.
    expect(unseenCatches(outcome), `checks claiming ${fault.name} that did not fail`).toEqual([]);
  });

  afterAll(() => console.log(catchReport("mutation catch rate", outcomes)));
});

describe.runIf(sample.length > 0)("in a full run, where every check runs: one fault of each check", () => {
  it.each(sample.map((f) => [f.caughtBy[0], f.name, f] as const))(
    "%s catches %s",
    async (_check, _name, fault) => {
      const outcome = await runAgainstFault(fault, { scope: "full" });
      expect(outcome.caught, missedMessage(outcome, fault)).toBe(true);
    },
  );
});

describe("the fault catalog", () => {
  it("holds at least 60 distinct faults, each naming the checks that must catch it", () => {
    const names = catalog.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(60);
    for (const fault of catalog) expect(fault.caughtBy.length, fault.name).toBeGreaterThan(0);
  });

  it("names only checks the tester has", () => {
    for (const fault of catalog) expect(() => focusedChecks(fault)).not.toThrow();
  });

  it("has a fault in the full-run sample for every check a fault names first", () => {
    const firsts = new Set(catalog.map((f) => f.caughtBy[0]));
    expect(
      fullRunSample(catalog)
        .map((f) => f.caughtBy[0])
        .sort(),
    ).toEqual([...firsts].sort());
  });
});
