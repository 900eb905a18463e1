// Mutation testing: one injected fault at a time, each judged by a focused run of the checks that
// must catch it, a full run where the focused one misses, and a full run for one fault of each
// check (test/support/mutation.ts says why). The default run judges a seeded, stratified sample
// of the catalog (defaultSample: every check's full-run fault, a fault each check claims, SAMPLE_SHARE of
// the rest of each check's faults); `MUTATION_SAMPLE=all` (or `npm run test:full` at the root)
// judges every fault, `MUTATION_SEED=<n>` another sample. `MUTATION_ONLY=<part of a name>` judges
// every fault whose name has it; `MUTATION_RUN=full` judges every fault in a full run.
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
  claimedBy,
  defaultFullRuns,
  defaultSample,
  everyFault,
  everyFaultInFull,
  focusedChecks,
  fullRunSample,
  judgeFault,
  judgeInFull,
  type MutationOutcome,
  runAgainstFault,
  SAMPLE_SHARE,
  sampleSeed,
  unseenCatches,
} from "./support/mutation.js";
import { relationFaults } from "./support/relation-faults.js";

// The demo credentials sign the requests of the faults that re-sign.
const groups = [
  faults(DEMO_CREDENTIALS),
  behaviourFaults(DEMO_CREDENTIALS),
  explorationFaults(DEMO_CREDENTIALS),
  meaningFaults(DEMO_CREDENTIALS),
  engineFaults(DEMO_CREDENTIALS),
  relationFaults(),
];
const catalog = groups.flat();
const only = process.env.MUTATION_ONLY;
const selected = only ? catalog.filter((f) => f.name.includes(only)) : catalog;
const whole = only !== undefined || everyFault || everyFaultInFull;
const sample = everyFaultInFull
  ? []
  : whole
    ? fullRunSample(selected)
    : defaultFullRuns(groups.map((group) => group.filter((f) => selected.includes(f))));
const judged = whole ? selected : defaultSample(selected);
// The full-run sample's faults are judged by their full run (judgeInFull), not twice.
const focused = judged.filter((f) => !sample.includes(f));

const outcomes: MutationOutcome[] = [];
// After both suites: the full-run sample's outcomes are in the rate too.
afterAll(() =>
  console.log(
    `${catchReport("mutation catch rate", outcomes)}\n${
      judged.length < selected.length
        ? `(a sample: ${judged.length} of ${selected.length} faults, seed ${sampleSeed}; MUTATION_SAMPLE=all judges all)`
        : `(every fault of ${selected.length})`
    }`,
  ),
);
const missedMessage = (outcome: MutationOutcome, fault: (typeof catalog)[number]) =>
  `${fault.name} (${fault.description}) should fail one of ${fault.caughtBy.join(", ")}; failed in a ${outcome.scope} run: ${outcome.failedChecks.join(", ") || "none"} (exit ${outcome.exitCode})`;

describe("mutation testing: one injected fault at a time", () => {
  it("the proxy without a fault changes nothing (exit 0)", async () => {
    const outcome = await runAgainstFault(undefined);
    expect(outcome.exitCode, reportText(outcome.result, { color: false })).toBe(0);
  });

  it.each(focused.map((f) => [f.name, f] as const))("catches %s", async (_name, fault) => {
    const outcome = await judgeFault(fault);
    outcomes.push(outcome);
    expect(outcome.caught, missedMessage(outcome, fault)).toBe(true);
    // Every check that names this fault in its seenToCatch is seen to fail on it.
    expect(unseenCatches(outcome), `checks claiming ${fault.name} that did not fail`).toEqual([]);
  });
});

// Under MUTATION_RUN=full every fault runs in full above, and there is no sample (a skipped
// describe would still collect its empty table, which vitest.non-empty-tables.ts refuses).
if (sample.length > 0) {
  describe("in a full run, where every check runs: one fault of each check", () => {
    it.each(sample.map((f) => [f.caughtBy[0], f.name, f] as const))(
      "%s catches %s",
      async (_check, _name, fault) => {
        const { full, claims } = await judgeInFull(fault);
        outcomes.push(claims);
        expect(full.caught, missedMessage(full, fault)).toBe(true);
        // As for every fault: the checks that name it in their seenToCatch are seen to fail on it.
        expect(claims.caught, missedMessage(claims, fault)).toBe(true);
        expect(unseenCatches(claims), `checks claiming ${fault.name} that did not fail`).toEqual([]);
      },
    );
  });
}

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

  it("samples every check's full-run fault, a fault of every check's claims, and SAMPLE_SHARE of the rest of each check's faults", () => {
    const picked = new Set(defaultSample(catalog).map((f) => f.name));
    for (const fault of fullRunSample(catalog)) expect(picked.has(fault.name), fault.name).toBe(true);
    const names = new Set(catalog.map((f) => f.name));
    for (const check of new Set(catalog.flatMap((f) => claimedBy(f.name)))) {
      const claims = catalog.filter((f) => claimedBy(f.name).includes(check)).map((f) => f.name);
      if (claims.length > 0)
        expect(
          claims.some((n) => picked.has(n)),
          `a fault ${check} claims`,
        ).toBe(true);
    }
    for (const first of new Set(catalog.map((f) => f.caughtBy[0]))) {
      const stratum = catalog.filter((f) => f.caughtBy[0] === first);
      const drawn = stratum.filter((f) => picked.has(f.name)).length;
      expect(drawn, `${first}: ${drawn} of ${stratum.length}`).toBeGreaterThanOrEqual(
        Math.min(stratum.length, 1 + Math.ceil((stratum.length - 1) * SAMPLE_SHARE)),
      );
    }
    expect([...picked].every((n) => names.has(n))).toBe(true);
    expect(picked.size).toBeLessThan(catalog.length);
  });

  it("runs SAMPLE_SHARE of the full-run sample in full, at least one fault of each group, and judges the rest like any fault", () => {
    const full = defaultFullRuns(groups);
    const everyCheck = fullRunSample(catalog);
    expect(full.length).toBeGreaterThanOrEqual(Math.ceil(everyCheck.length * SAMPLE_SHARE));
    expect(full.length).toBeLessThan(everyCheck.length);
    for (const fault of full) expect(everyCheck).toContain(fault);
    for (const [i, group] of groups.entries()) {
      if (everyCheck.some((f) => group.includes(f)))
        expect(
          full.some((f) => group.includes(f)),
          `group ${i}`,
        ).toBe(true);
    }
    const judgedNames = new Set(defaultSample(catalog).map((f) => f.name));
    for (const fault of everyCheck) expect(judgedNames.has(fault.name), fault.name).toBe(true);
  });

  it("keeps each fault's place in the draw when another fault joins the catalog", () => {
    const grown = [
      ...catalog,
      { name: "a-fault-added-later", description: "", caughtBy: [catalog[0]!.caughtBy[0]!] },
    ];
    const before = defaultSample(catalog).map((f) => f.name);
    const after = new Set(defaultSample(grown).map((f) => f.name));
    // Only the added fault's own stratum may gain or lose a pick by rounding.
    const stratum = new Set(
      grown.filter((f) => f.caughtBy[0] === catalog[0]!.caughtBy[0]).map((f) => f.name),
    );
    expect(before.filter((n) => !stratum.has(n) && !after.has(n))).toEqual([]);
  });
});
