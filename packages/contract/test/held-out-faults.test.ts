// Measured from outside: faults that no other test contains (test/support/held-out-faults.ts),
// injected one at a time in front of the reference server, each judged as the mutation suite
// judges its faults (test/support/mutation.ts: a focused run, and a full run where it misses).
// The summary line is the figure the package README quotes: `npx vitest run test/held-out-faults.test.ts`.
import { DEMO_CREDENTIALS } from "@marketapi/reference-server";
import { afterAll, describe, expect, it } from "vitest";
import { behaviourFaults } from "./support/behaviour-faults.js";
import { faults } from "./support/faults.js";
import { heldOutFaults, UNOBSERVABLE } from "./support/held-out-faults.js";
import { catchReport, judgeFault, type MutationOutcome, unseenCatches } from "./support/mutation.js";
import { relationFaults } from "./support/relation-faults.js";

const catalog = heldOutFaults(DEMO_CREDENTIALS);

const outcomes: MutationOutcome[] = [];

describe("held-out faults: one at a time", () => {
  it("are at least 15, distinct, and none of them is in the mutation suite", () => {
    const names = catalog.map((f) => f.name);
    const suite = new Set(
      [...faults(DEMO_CREDENTIALS), ...behaviourFaults(DEMO_CREDENTIALS), ...relationFaults()].map(
        (f) => f.name,
      ),
    );
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(15);
    expect(names.filter((n) => suite.has(n))).toEqual([]);
  });

  it.each(catalog.map((f) => [f.name, f] as const))(
    "fault %s: caught, or noted as not observable",
    async (_name, fault) => {
      const outcome = await judgeFault(fault);
      outcomes.push(outcome);
      const known = UNOBSERVABLE[fault.name];
      if (known) {
        // Not caught, and the report says why; if it ever is caught, move it out of this list.
        expect(outcome.caught, `${fault.name} is now caught: remove it from UNOBSERVABLE`).toBe(false);
        const cell = outcome.result.cells.find(
          (c) => c.check === known.check && c.operationId === known.operationId,
        );
        expect(cell?.reason ?? "").toContain(known.note);
        return;
      }
      expect(
        outcome.caught,
        `${fault.name} (${fault.description}) should fail one of ${fault.caughtBy.join(", ")}; failed in a ${outcome.scope} run: ${outcome.failedChecks.join(", ") || "none"} (exit ${outcome.exitCode})`,
      ).toBe(true);
      expect(unseenCatches(outcome), `checks claiming ${fault.name} that did not fail`).toEqual([]);
    },
  );

  afterAll(() => console.log(catchReport("held-out catch rate", outcomes)));
});
