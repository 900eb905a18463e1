import { DEMO_CREDENTIALS } from "@marketapi/reference-server";
import { afterAll, describe, expect, it } from "vitest";
import { reportText } from "../src/report/text.js";
import { behaviourFaults } from "./support/behaviour-faults.js";
import { faults } from "./support/faults.js";
import { type MutationOutcome, runAgainstFault, unseenCatches } from "./support/mutation.js";
import { relationFaults } from "./support/relation-faults.js";

// The demo credentials sign the requests of the faults that re-sign.
const catalog = [...faults(DEMO_CREDENTIALS), ...behaviourFaults(DEMO_CREDENTIALS), ...relationFaults()];
const only = process.env.MUTATION_ONLY;
const selected = only ? catalog.filter((f) => f.name.includes(only)) : catalog;

const outcomes: MutationOutcome[] = [];

describe("mutation testing: one injected fault at a time", () => {
  it("the proxy without a fault changes nothing (exit 0)", async () => {
    const outcome = await runAgainstFault(undefined);
    expect(outcome.exitCode, reportText(outcome.result, { color: false })).toBe(0);
  });

  it.each(selected.map((f) => [f.name, f] as const))("catches %s", async (_name, fault) => {
    const outcome = await runAgainstFault(fault);
    outcomes.push(outcome);
    expect(
      outcome.caught,
      `${fault.name} (${fault.description}) should fail one of ${fault.caughtBy.join(", ")}; failed: ${outcome.failedChecks.join(", ") || "none"} (exit ${outcome.exitCode})`,
    ).toBe(true);
    // Every check that names this fault in its seenToCatch is seen to fail on it.
    expect(unseenCatches(outcome), `checks claiming ${fault.name} that did not fail`).toEqual([]);
  });

  afterAll(() => {
    const caught = outcomes.filter((o) => o.caught).length;
    const lines = outcomes.map(
      (o) =>
        `  ${o.caught ? "caught " : "MISSED "} ${o.fault.padEnd(36)} failed checks: ${o.failedChecks.join(", ")}`,
    );
    const rate = outcomes.length > 0 ? ((100 * caught) / outcomes.length).toFixed(0) : "0";
    console.log(`mutation catch rate: ${caught}/${outcomes.length} (${rate} %)\n${lines.join("\n")}`);
  });
});

describe("the fault catalog", () => {
  it("holds at least 60 distinct faults, each naming the checks that must catch it", () => {
    const names = catalog.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(60);
    for (const fault of catalog) expect(fault.caughtBy.length, fault.name).toBeGreaterThan(0);
  });
});
