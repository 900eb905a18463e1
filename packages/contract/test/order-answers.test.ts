// order_arithmetic's rule for one FULL answer of new_order (kit/order-answers.ts), given/want, with
// the spec's own x-order-arithmetic.
import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { parseDec as d } from "../src/core/decimal.js";
import { buildContractModel } from "../src/core/operations.js";
import {
  arithmeticProblems,
  inactiveTrailingProblem,
  quoteBudgetProblem,
  unanchoredTrailingProblem,
} from "../src/kit/order-answers.js";

const rule = buildContractModel(loadOpenApi()).operation("new_order")!.behaviour.orderArithmetic!;

const fill = (price: string, qty: string) => ({ price, qty, commission: "0", commissionAsset: "BNB" });
const answer = (fields: Record<string, unknown>) => ({
  origQty: "2.00000000",
  executedQty: "2.00000000",
  cummulativeQuoteQty: "201.00000000",
  status: "FILLED",
  fills: [fill("100.00", "1.00000000"), fill("101.00", "1.00000000")],
  ...fields,
});

describe("arithmeticProblems", () => {
  it.each([
    { name: "two fills that add up", given: answer({}), tif: "", want: [] },
    {
      name: "fills of half the quantity executed",
      given: answer({ fills: [fill("100.00", "0.50000000"), fill("101.00", "0.50000000")] }),
      tif: "",
      want: [
        "the 2 fills sum to 1, executedQty is 2",
        "cummulativeQuoteQty is 201, Σ price × qty of the fills is 100.5",
      ],
    },
    {
      name: "a quote quantity that is not Σ price × qty",
      given: answer({ cummulativeQuoteQty: "200.00000000" }),
      tif: "",
      want: ["cummulativeQuoteQty is 200, Σ price × qty of the fills is 201"],
    },
    {
      name: "a quote quantity one unit of 10^-8 per fill off (its precision)",
      given: answer({ cummulativeQuoteQty: "201.00000002" }),
      tif: "",
      want: [],
    },
    {
      name: "FILLED with part executed",
      given: answer({ origQty: "3.00000000" }),
      tif: "",
      want: ["status FILLED with part of 3 executed; want PARTIALLY_FILLED or EXPIRED"],
    },
    {
      name: "an IOC resting on the book",
      given: answer({ origQty: "3.00000000", status: "PARTIALLY_FILLED" }),
      tif: "IOC",
      want: ["a IOC order rests on the book (status PARTIALLY_FILLED)"],
    },
    {
      name: "a FOK filled in part",
      given: answer({ origQty: "3.00000000", status: "EXPIRED" }),
      tif: "FOK",
      want: ["a FOK order filled 2 of 3"],
    },
    {
      name: "nothing executed and no fills: NEW",
      given: answer({
        executedQty: "0.00000000",
        cummulativeQuoteQty: "0.00000000",
        status: "NEW",
        fills: [],
      }),
      tif: "GTC",
      want: [],
    },
    {
      name: "quantities that are not decimal text",
      given: answer({ executedQty: 2 }),
      tif: "",
      want: ["executedQty, origQty and cummulativeQuoteQty must be decimal text"],
    },
  ])("$name", ({ given, tif, want }) => {
    expect(arithmeticProblems(rule, given, tif)).toEqual(want);
  });
});

describe("quoteBudgetProblem: a MARKET BUY by quote budget buys what whole steps allow", () => {
  // Filled at 60011.99 from an order offering 0.0003, in steps of 0.00001.
  const cases: Array<{ name: string; budget: string; executed: string; want: RegExp | undefined }> = [
    {
      name: "a budget of whole steps, all of it bought",
      budget: "12.002398",
      executed: "0.0002",
      want: undefined,
    },
    {
      name: "one step short of a budget of whole steps",
      budget: "12.002398",
      executed: "0.00019",
      want: /executed 0\.00019; the budget pays for 0\.0002 in whole steps of 0\.00001 .*one step or more short/,
    },
    { name: "a budget between steps, floored", budget: "12.6", executed: "0.00020", want: undefined },
    { name: "more than is offered, what is offered", budget: "100", executed: "0.0003", want: undefined },
    {
      name: "more than the budget pays for",
      budget: "12.002398",
      executed: "0.00021",
      want: /more than it pays for/,
    },
  ];
  it.each(cases)("$name", ({ budget, executed, want }) => {
    const problem = quoteBudgetProblem(d(budget), d("60011.99"), d("0.00001"), d("0.0003"), d(executed));
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});

describe("inactiveTrailingProblem: a trailing stop not active yet shows trailingTime -1", () => {
  const cases: Array<{ name: string; given: Record<string, unknown>; want: RegExp | undefined }> = [
    { name: "-1", given: { trailingDelta: 100, trailingTime: -1, stopPrice: "50000" }, want: undefined },
    { name: "not shown (an ACK answer)", given: { orderId: 1 }, want: undefined },
    {
      name: "the time it was placed",
      given: { trailingDelta: 100, trailingTime: 1764547200000, stopPrice: "50000" },
      want: /trailingTime 1764547200000, though the trailing stop is not active \(its stopPrice 50000 not reached\)/,
    },
    { name: "zero", given: { trailingDelta: 100, trailingTime: 0, stopPrice: "1" }, want: /trailingTime 0/ },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const problem = inactiveTrailingProblem(given);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});

describe("unanchoredTrailingProblem: a trailing stop placed without a stopPrice is active at once", () => {
  const cases: Array<{ name: string; given: Record<string, unknown>; want: RegExp | undefined }> = [
    {
      name: "the time it was placed",
      given: { trailingDelta: 2000, trailingTime: 1764547200000 },
      want: undefined,
    },
    { name: "not shown (an ACK answer)", given: { orderId: 1 }, want: undefined },
    {
      name: "-1",
      given: { trailingDelta: 2000, trailingTime: -1 },
      want: /trailingTime -1, though .* without a stopPrice/,
    },
    {
      name: "a time as text",
      given: { trailingDelta: 2000, trailingTime: "1764547200000" },
      want: /trailingTime "1764547200000"/,
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const problem = unanchoredTrailingProblem(given);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});
