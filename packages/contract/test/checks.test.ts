// The contract tester's map: one module per check under src/checks/, named after the check, each
// listed in CHECKS in the order of CHECK_NAMES.
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHECKS } from "../src/checks/index.js";
import { CHECK_NAMES } from "../src/results.js";

const moduleOf = (check: string) => `src/checks/${check.replace(/_/g, "-")}.ts`;

describe("the checks' modules", () => {
  it("lists every check once, in the order of the results", () => {
    expect(CHECKS.map((check) => check.name)).toEqual([...CHECK_NAMES]);
  });

  it.each([...CHECK_NAMES])("keeps %s in a module of its own name", (check) => {
    expect(existsSync(new URL(`../${moduleOf(check)}`, import.meta.url)), moduleOf(check)).toBe(true);
  });
});
