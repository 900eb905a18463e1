// rate_counters' judgement of the orders each order counter holds (countsShort): the order itself
// and every order of its account answered before it was sent inside the same window.
import { describe, expect, it } from "vitest";
import { countsShort } from "../src/checks/rate-counters.js";

const TEN_S = { name: "X-MBX-ORDER-COUNT-10S", windowMs: 10_000 };
/** An order sent at `at` (ms into the run's first window 1000 × 10 s), answered 20 ms later. */
const order = (at: number, value: number | undefined) => ({
  sentAt: 10_000_000 + at,
  answeredAt: 10_000_000 + at + 20,
  value,
});

describe("countsShort", () => {
  it.each([
    {
      given: "each order counting itself and those before",
      orders: [order(1000, 1), order(2000, 2), order(3000, 3)],
      want: [],
    },
    {
      given: "a count higher than the run's (another client of the account)",
      orders: [order(1000, 5), order(2000, 9)],
      want: [],
    },
    {
      given: "a count read before the order was added",
      orders: [order(1000, 0), order(2000, 1)],
      want: [
        { index: 0, value: 0, atLeast: 1 },
        { index: 1, value: 1, atLeast: 2 },
      ],
    },
    {
      given: "orders in flight together, each counted by itself only",
      orders: [order(1000, 1), { sentAt: 10_001_005, answeredAt: 10_001_030, value: 1 }],
      want: [],
    },
    {
      given: "an earlier window's orders not counted in the next",
      orders: [order(1000, 1), order(11_000, 1)],
      want: [],
    },
    {
      given: "an order within the margin of a boundary not judged, and not counted",
      orders: [order(9_900, 0), order(12_000, 1)],
      want: [],
    },
    {
      given: "an answer without the counter not judged",
      orders: [order(1000, undefined), order(2000, 2)],
      want: [],
    },
  ])("$given", ({ orders, want }) => {
    expect(countsShort(orders, TEN_S)).toEqual(want);
  });
});
