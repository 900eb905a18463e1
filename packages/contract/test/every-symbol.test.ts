// every_symbol's pure judgements (src/checks/every-symbol.ts), given/want.
import { describe, expect, it } from "vitest";
import { cancelAllProblems, statusProblems } from "../src/checks/every-symbol.js";

describe("statusProblems: a status the target does not keep", () => {
  const announced = new Map([
    ["BTCUSDT", "TRADING"],
    ["ETHUSDT", "HALT"],
    ["ETHBTC", "CANCEL_ONLY"],
  ]);
  it.each([
    { name: "orders on a trading symbol", given: new Map([["BTCUSDT", 3]]), want: [] },
    { name: "none accepted on a halted one", given: new Map([["ETHUSDT", 0]]), want: [] },
    {
      name: "a symbol exchangeInfo does not list is not judged here",
      given: new Map([["XRPUSDT", 1]]),
      want: [],
    },
    {
      name: "orders accepted on a halted symbol",
      given: new Map([["ETHUSDT", 2]]),
      want: ["ETHUSDT with status HALT, yet 2 new order(s)"],
    },
    {
      name: "cancel-only takes no new order either",
      given: new Map([
        ["BTCUSDT", 1],
        ["ETHBTC", 1],
      ]),
      want: ["ETHBTC with status CANCEL_ONLY"],
    },
  ])("$name", ({ given, want }) => {
    const got = statusProblems(announced, given);
    expect(got).toHaveLength(want.length);
    for (const [i, words] of want.entries()) expect(got[i]).toContain(words);
  });
});

describe("cancelAllProblems: cancel_all_orders on one symbol takes that symbol's orders only", () => {
  const orders = [
    { symbol: "BTCUSDT", clientOrderId: "run-1" },
    { symbol: "ETHUSDT", clientOrderId: "run-2" },
  ];
  const cancelled = { symbol: "BTCUSDT", origClientOrderId: "run-1", status: "CANCELED" };
  it.each([
    {
      name: "its own order reported, the other open",
      given: { reported: [cancelled], open: true },
      want: [],
    },
    {
      name: "its own order not reported",
      given: { reported: [], open: true },
      want: ["does not report the run's order run-1"],
    },
    {
      name: "another symbol's order reported",
      given: { reported: [cancelled, { symbol: "ETHUSDT", origClientOrderId: "run-2" }], open: true },
      want: ["reports an order of ETHUSDT (run-2)"],
    },
    {
      name: "another symbol's order cancelled unsaid",
      given: { reported: [cancelled], open: false },
      want: ["run-2 on ETHUSDT is no longer open"],
    },
  ])("$name", ({ given, want }) => {
    const got = cancelAllProblems("BTCUSDT", orders, given.reported, new Map([["run-2", given.open]]));
    expect(got).toHaveLength(want.length);
    for (const [i, words] of want.entries()) expect(got[i]).toContain(words);
  });
});
