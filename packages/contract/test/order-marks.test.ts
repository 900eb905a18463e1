// Fields of one order view that mark one fact (kit/order-state.ts), given/want: isWorking against
// workingTime (order_times), and self-trade prevention's fields against its mode (order_views).
import { describe, expect, it } from "vitest";
import { preventionFieldsProblem, workingFlagProblem } from "../src/kit/order-state.js";

const order = (fields: Record<string, unknown>) => ({ orderId: 7, status: "FILLED", ...fields });

describe("workingFlagProblem: isWorking exactly when workingTime is set", () => {
  const cases: Array<{ name: string; given: Record<string, unknown>; want: RegExp | undefined }> = [
    {
      name: "working, with its time",
      given: order({ isWorking: true, workingTime: 1700000000000 }),
      want: undefined,
    },
    {
      name: "a stop not yet working",
      given: order({ status: "NEW", isWorking: false, workingTime: -1 }),
      want: undefined,
    },
    { name: "neither shown (an ACK)", given: order({}), want: undefined },
    {
      name: "an ended order read as not working, its time kept",
      given: order({ isWorking: false, workingTime: 1700000000000 }),
      want: /order 7 \(FILLED\) shows isWorking false with workingTime 1700000000000/,
    },
    {
      name: "working without a time",
      given: order({ isWorking: true, workingTime: -1 }),
      want: /isWorking true with workingTime -1/,
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const problem = workingFlagProblem(given);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});

describe("preventionFieldsProblem: self-trade prevention's fields only where it acted", () => {
  const cases: Array<{ name: string; given: Record<string, unknown>; want: RegExp | undefined }> = [
    { name: "absent", given: order({ selfTradePreventionMode: "NONE" }), want: undefined },
    {
      name: "a prevented match, under EXPIRE_MAKER",
      given: order({
        status: "EXPIRED_IN_MATCH",
        selfTradePreventionMode: "EXPIRE_MAKER",
        preventedMatchId: 0,
        preventedQuantity: "1.5",
      }),
      want: undefined,
    },
    {
      name: "shown under NONE",
      given: order({
        selfTradePreventionMode: "NONE",
        preventedMatchId: -1,
        preventedQuantity: "0.00000000",
      }),
      want: /under selfTradePreventionMode NONE, which never prevents a match/,
    },
    {
      name: "a sentinel under another mode",
      given: order({ selfTradePreventionMode: "EXPIRE_TAKER", preventedMatchId: -1, preventedQuantity: "0" }),
      want: /name the match prevented \(an id from 0\) and the quantity kept from trading \(above zero\)/,
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const problem = preventionFieldsProblem(given);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});
