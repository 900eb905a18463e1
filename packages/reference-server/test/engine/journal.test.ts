import { describe, expect, it } from "vitest";
import { Journal } from "../../src/engine/journal.js";
import type { Market } from "../../src/engine/market.js";
import type { Order } from "../../src/engine/types.js";

/** Stand-ins: the journal keeps them by identity and never reads them. */
const orders = Array.from({ length: 20 }, (_, i) => ({ orderId: i }) as unknown as Order);
const markets = Array.from({ length: 3 }, (_, i) => ({ symbol: `S${i}` }) as unknown as Market);

describe("Journal: each order and market once, in the order first touched", () => {
  const cases: { name: string; given: number[]; want: number[] }[] = [
    { name: "nothing", given: [], want: [] },
    { name: "one order touched twice", given: [3, 3], want: [3] },
    { name: "a few, repeated", given: [1, 2, 1, 3, 2], want: [1, 2, 3] },
    {
      name: "eight, then the first again",
      given: [0, 1, 2, 3, 4, 5, 6, 7, 0],
      want: [0, 1, 2, 3, 4, 5, 6, 7],
    },
    {
      name: "past eight (looked up in a set), repeats before and after",
      given: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 0, 10, 1, 11, 19, 10],
      want: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 10, 11, 19],
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const journal = new Journal();
    for (const i of given) journal.order(markets[i % 3] as Market, orders[i] as Order);
    const changes = journal.drain();
    expect(changes.orders.map((o) => o.orderId)).toEqual(want);
    expect(changes.markets.length).toBe(Math.min(3, new Set(given.map((i) => i % 3)).size));
    // Drained: the next record starts empty, and what was handed over stays as it was.
    expect(journal.isEmpty()).toBe(true);
    journal.order(markets[0] as Market, orders[given[0] ?? 0] as Order);
    expect(journal.drain().orders).toHaveLength(1);
    expect(changes.orders.map((o) => o.orderId)).toEqual(want);
  });

  it("fees and deposits name each asset once", () => {
    const journal = new Journal();
    for (const asset of ["BTC", "USDT", "BTC", "BNB", "USDT"]) {
      journal.fee(asset);
      journal.deposit(asset);
    }
    const changes = journal.drain();
    expect([changes.fees, changes.deposits]).toEqual([
      ["BTC", "USDT", "BNB"],
      ["BTC", "USDT", "BNB"],
    ]);
  });
});
