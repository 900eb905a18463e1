// The pure judgement of the kit's trade between the run's own orders (src/kit/own-orders.ts).
import { describe, expect, it } from "vitest";
import { parseDec } from "../src/core/decimal.js";
import { untakenProblem } from "../src/kit/own-orders.js";

describe("untakenProblem: an IOC BUY that expired short of makers of the run it reached", () => {
  it.each([
    {
      given: { status: "EXPIRED", executed: "0.003", left: 2 },
      want: /expired having executed 0.003, while 2 of the run's SELLs/,
    },
    { given: { status: "FILLED", executed: "0.014", left: 0 }, want: undefined },
    { given: { status: "EXPIRED", executed: "0.003", left: 0 }, want: undefined },
    { given: { status: "EXPIRED_IN_MATCH", executed: "0", left: 2 }, want: undefined },
    { given: { status: "EXPIRED", executed: undefined, left: 1 }, want: undefined },
  ])("$given → $want", ({ given, want }) => {
    const executed = given.executed === undefined ? undefined : parseDec(given.executed);
    const problem = untakenProblem(given.status, executed, parseDec("0.014"), "0.05", given.left);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});
