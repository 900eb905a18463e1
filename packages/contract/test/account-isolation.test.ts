import { describe, expect, it } from "vitest";
import { foreignLookupProblem, orderCounts, sharedIdCancelProblem } from "../src/checks/account-isolation.js";

describe("account_isolation: a lookup of another account's order", () => {
  const id = "mct-run-7";
  it.each([
    { given: { status: 400, body: { code: -2013 }, unknown: true }, want: undefined },
    { given: { status: 400, body: { code: -1100 }, unknown: false }, want: /not the unknown-order refusal/ },
    {
      given: { status: 200, body: { clientOrderId: id }, unknown: false },
      want: /answered the other account's order mct-run-7/,
    },
    {
      given: { status: 200, body: { origClientOrderId: id }, unknown: false },
      want: /answered the other account's order/,
    },
    {
      given: { status: 200, body: { clientOrderId: "x" }, unknown: false },
      want: /an id the account does not own/,
    },
  ])("$given.status $given.body → $want", ({ given, want }) => {
    const problem = foreignLookupProblem(
      "query_order",
      id,
      { status: given.status, body: given.body },
      given.unknown,
    );
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});

describe("account_isolation: the second account's cancel by the client id it shares with the run's order", () => {
  it.each([
    { given: { accepted: true, orderId: 41 }, want: undefined },
    { given: { accepted: true, orderId: 40 }, want: /cancelled orderId 40, not its own 41/ },
    { given: { accepted: false, orderId: undefined }, want: /did not cancel its own open order/ },
  ])("$given → $want", ({ given, want }) => {
    const problem = sharedIdCancelProblem("mct-run-7", 41, given);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});

describe("account_isolation: order counters by interval", () => {
  it.each<{ given: Record<string, string>; want: [string, number][] }>([
    {
      given: { "x-mbx-order-count-10s": "3", "X-MBX-ORDER-COUNT-1D": "12" },
      want: [
        ["10S", 3],
        ["1D", 12],
      ],
    },
    { given: { "x-mbx-order-count-10s": "three", "x-mbx-used-weight-1m": "5" }, want: [] },
  ])("$given → $want", ({ given, want }) => {
    expect([...orderCounts(given)]).toEqual(want);
  });
});
