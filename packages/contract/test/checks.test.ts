// The contract tester's map: one module per check under src/checks/, named after the check, each
// exporting the one ContractCheck that every list of checks is derived from (src/checks/index.ts).
// A check must be seen to catch a fault: it names faults of the mutation or held-out suites
// (seenToCatch), and those suites fail unless it fails on them (test/support/mutation.ts).
import { existsSync, readFileSync } from "node:fs";
import { DEMO_CREDENTIALS } from "@marketapi/reference-server";
import { EXTENSIONS } from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import {
  CHECK_DESCRIPTIONS,
  CHECK_LABELS,
  CHECK_NAMES,
  CHECKS,
  type ContractCheck,
  checksAt,
} from "../src/checks/index.js";
import { unlistedMethod, unlistedMethodProblem } from "../src/checks/method-refusal.js";
import { namedLists } from "../src/checks/result-filter.js";
import { USAGE } from "../src/options.js";
import { RESPONSE_CHECKS } from "../src/result.js";
import { behaviourFaults } from "./support/behaviour-faults.js";
import { connectionFaults, loadConnectionFaults } from "./support/connection-faults.js";
import { engineFaults } from "./support/engine-faults.js";
import { explorationFaults } from "./support/exploration-faults.js";
import { faults } from "./support/faults.js";
import { heldOutFaults, UNOBSERVABLE } from "./support/held-out-faults.js";
import { loadFaults, windowRestartFault } from "./support/load-faults.js";
import { meaningFaults } from "./support/meaning-faults.js";
import { relationFaults } from "./support/relation-faults.js";

const moduleOf = (check: string) => `src/checks/${check.replace(/_/g, "-")}.ts`;
const source = (check: string) => readFileSync(new URL(`../${moduleOf(check)}`, import.meta.url), "utf8");

/** The faults the suites run and expect to be caught (test/mutations.test.ts, test/held-out-faults.test.ts, test/load-phase.test.ts, test/weight-window.test.ts, test/pipelining.test.ts). */
const caughtFaults = new Set(
  [
    ...faults(DEMO_CREDENTIALS),
    ...behaviourFaults(DEMO_CREDENTIALS),
    ...explorationFaults(DEMO_CREDENTIALS),
    ...meaningFaults(DEMO_CREDENTIALS),
    ...engineFaults(DEMO_CREDENTIALS),
    ...heldOutFaults(DEMO_CREDENTIALS),
    ...relationFaults(),
    ...loadFaults(),
    windowRestartFault(),
    ...connectionFaults(),
    ...loadConnectionFaults(),
  ]
    .map((fault) => fault.name)
    .filter((name) => !(name in UNOBSERVABLE)),
);

/** Why a check is not seen to catch anything, or undefined when it names a fault the suites run. */
function unproven(check: Pick<ContractCheck, "name" | "seenToCatch">): string | undefined {
  if (check.seenToCatch.length === 0) return `${check.name}: seenToCatch is empty`;
  const unknown = check.seenToCatch.filter((fault) => !caughtFaults.has(fault));
  if (unknown.length > 0) return `${check.name}: no suite runs and expects caught ${unknown.join(", ")}`;
  return undefined;
}

/** The other checks a module's source names (it would record their verdicts). */
const othersNamed = (check: string, text: string) =>
  CHECK_NAMES.filter((name) => name !== check && text.includes(`"${name}"`));

describe("the checks' modules", () => {
  it("derive every list of checks: names, descriptions, labels, the answer checks, the usage text", () => {
    expect(CHECK_NAMES).toEqual(CHECKS.map((check) => check.name));
    expect(Object.keys(CHECK_DESCRIPTIONS)).toEqual([...CHECK_NAMES]);
    expect(Object.keys(CHECK_LABELS)).toEqual([...CHECK_NAMES]);
    expect(RESPONSE_CHECKS).toEqual(checksAt("answer").map((check) => check.name));
    for (const check of CHECKS) expect(USAGE).toContain(`${check.name} (${check.label})`);
  });

  it("give each check at most one hook per phase (a phase runs the first it finds)", () => {
    for (const check of CHECKS) {
      const phases = check.hooks.map((hook) => hook.phase);
      expect(phases, check.name).toEqual([...new Set(phases)]);
    }
  });

  it("give each check a distinct name and label, a description, and a reason where it does not apply", () => {
    const names = CHECKS.map((check) => check.name);
    const labels = CHECKS.map((check) => check.label);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels.filter((label) => (names as string[]).includes(label))).toEqual([]);
    for (const check of CHECKS) {
      expect(check.name, check.name).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
      expect(check.label.length, check.name).toBeLessThanOrEqual(9);
      expect(check.description.length, check.name).toBeGreaterThan(20);
      if (check.appliesTo) expect(check.notApplicable, check.name).toBeTruthy();
    }
  });

  it("cover only extensions the spec's registry holds, each that constrains behaviour by some check", () => {
    const registered = new Map(EXTENSIONS.map((extension) => [extension.key, extension]));
    const covered = new Set(CHECKS.flatMap((check) => check.covers));
    expect([...covered].filter((key) => !registered.has(key))).toEqual([]);
    const behaviour = EXTENSIONS.filter((extension) => extension.constrains.includes("behaviour"));
    expect(behaviour.map((e) => e.key).filter((key) => !covered.has(key))).toEqual([]);
  });

  it.each([...CHECK_NAMES])("keeps %s in a module of its own name", (check) => {
    expect(existsSync(new URL(`../${moduleOf(check)}`, import.meta.url)), moduleOf(check)).toBe(true);
  });

  it.each([...CHECK_NAMES])("%s's module records verdicts of its own check only", (check) => {
    expect(
      othersNamed(check, source(check)),
      `${moduleOf(check)} names other checks; each module records its own`,
    ).toEqual([]);
  });

  it.each([...CHECKS.map((check) => [check.name, check] as const)])(
    "%s names a fault of the suites that it is seen to catch",
    (_name, check) => {
      expect(unproven(check)).toBeUndefined();
    },
  );

  it("fails, on purpose, a check that names no fault, an unknown one or an unobservable one, and a module naming another check", () => {
    expect(unproven({ name: "x", seenToCatch: [] })).toMatch(/seenToCatch is empty/);
    expect(unproven({ name: "x", seenToCatch: ["a-fault-nobody-wrote"] })).toMatch(/a-fault-nobody-wrote/);
    expect(unproven({ name: "x", seenToCatch: Object.keys(UNOBSERVABLE) })).toMatch(/no suite runs/);
    expect(unproven({ name: "x", seenToCatch: ["price-as-number"] })).toBeUndefined();
    expect(othersNamed("list_order", 'session.pass("time_window", exchange)')).toEqual(["time_window"]);
  });

  it("are the rows of the README's table of checks, in order", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const table = readme.slice(readme.indexOf("## Checks"));
    const rows = [
      ...table.slice(0, table.indexOf("\n\n", table.indexOf("| check"))).matchAll(/^\| `([a-z_]+)`/gm),
    ];
    expect(rows.map((row) => row[1])).toEqual([...CHECK_NAMES]);
  });
});

describe("result_filter: the lists a list filter is read with", () => {
  // A list naming every listed symbol cannot tell an honoured filter from an ignored one.
  it.each([
    { given: { listed: ["A", "B", "C"], traded: ["A", "B", "C"] }, want: [["A", "B"]] },
    { given: { listed: ["A", "B", "C", "D"], traded: ["C", "A"] }, want: [["C", "A"]] },
    { given: { listed: ["A", "B", "C", "D"], traded: ["A"] }, want: [["A", "B"]] },
    { given: { listed: ["A", "B", "C", "D", "E"], traded: ["E", "D", "C"] }, want: [["E", "D", "C"]] },
    { given: { listed: ["A", "B"], traded: ["B", "A"] }, want: [["B", "A"], ["B"]] },
    { given: { listed: ["A"], traded: ["A"] }, want: [["A"]] },
  ])("$given.listed, trading $given.traded → $want", ({ given, want }) => {
    expect(namedLists(given.listed, given.traded)).toEqual(want);
  });
});

describe("method_refusal: the method probed and what its answer may be", () => {
  const model = (here: string[], elsewhere: string[]) => ({
    operations: [
      ...here.map((method) => ({ path: "/api/v3/depth", method: method.toLowerCase() })),
      ...elsewhere.map((method) => ({ path: "/api/v3/order", method: method.toLowerCase() })),
    ],
  });
  it.each([
    { given: { here: ["GET"], elsewhere: ["GET", "POST", "DELETE"] }, want: "POST" },
    { given: { here: ["GET", "POST"], elsewhere: ["DELETE"] }, want: "DELETE" },
    { given: { here: ["GET"], elsewhere: [] }, want: "POST" },
    { given: { here: ["GET", "POST", "DELETE"], elsewhere: ["POST"] }, want: "PUT" },
    { given: { here: ["GET", "PUT", "DELETE", "POST", "PATCH"], elsewhere: [] }, want: undefined },
  ])(
    "a path listing $given.here, the API also using $given.elsewhere, is probed with $want",
    ({ given, want }) => {
      expect(
        unlistedMethod(
          model(given.here, given.elsewhere) as unknown as Parameters<typeof unlistedMethod>[0],
          {
            path: "/api/v3/depth",
          },
        ),
      ).toBe(want);
    },
  );
  it.each([
    { given: 405, want: undefined },
    { given: 404, want: undefined },
    { given: 400, want: undefined },
    { given: 501, want: undefined },
    { given: 200, want: /was served/ },
    { given: 204, want: /was served/ },
    { given: 500, want: /server error/ },
    { given: 503, want: /server error/ },
  ])("status $given → $want", ({ given, want }) => {
    const problem = unlistedMethodProblem(given);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});
