// order_times on a busy market: which trades in the list may have filled the run's resting BUY
// besides its own SELL (before it, or on what it left before the maker was read), so that the maker's updateTime is judged against a fill that happened.
import { describe, expect, it } from "vitest";
import { changedFields, otherFills } from "../src/checks/order-times.js";
import { parseDec } from "../src/core/decimal.js";

const price = parseDec("100.01");
const placedAt = 1_000;
const window = { placedAt, readAt: 1_200 };
const ownTradeIds = [7];
const trade = (id: number, time: number, extra: Record<string, unknown> = {}) => ({
  id,
  time,
  price: "100.01000000",
  isBuyerMaker: true,
  ...extra,
});

describe("other accounts' fills of the run's maker", () => {
  const cases = [
    { name: "a foreign SELL at the maker's price, after the placement", given: [trade(5, 1_050)], want: [5] },
    { name: "the run's own fill is not another's", given: [trade(7, 1_100)], want: [] },
    { name: "before the placement", given: [trade(4, 999)], want: [] },
    { name: "after the run's SELL, on what it left, before the read", given: [trade(8, 1_150)], want: [8] },
    { name: "after the maker was read", given: [trade(9, 1_201)], want: [] },
    { name: "another price", given: [trade(5, 1_050, { price: "100.02" })], want: [] },
    { name: "the seller was the maker", given: [trade(5, 1_050, { isBuyerMaker: false })], want: [] },
    { name: "a time that is not a number", given: [trade(5, 1_050, { time: "1050" })], want: [] },
    {
      name: "at the placement's and at the read's millisecond",
      given: [trade(3, 1_000), trade(6, 1_200)],
      want: [3, 6],
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    expect(otherFills(given, price, window, ownTradeIds)?.map((t) => t.id)).toEqual(want);
  });

  it("a full list that starts after the placement may miss the fill: no answer", () => {
    const full = Array.from({ length: 500 }, (_, i) => trade(100 + i, 1_010 + i));
    expect(otherFills(full, price, window, ownTradeIds)).toBeUndefined();
    // One trade from before the placement shows the list reaches back far enough.
    expect(otherFills([trade(99, 990), ...full.slice(1)], price, window, ownTradeIds)).toHaveLength(190);
  });
});

describe("what a refused cancel changed in an order", () => {
  const order = { orderId: 7, status: "CANCELED", time: 100, updateTime: 140, executedQty: "0.00" };
  it.each([
    { given: "the same order", after: { ...order }, want: [] },
    {
      given: "updateTime moved",
      after: { ...order, updateTime: 180 },
      want: ["updateTime went from 140 to 180"],
    },
    {
      given: "a field gone and one new",
      after: { orderId: 7, status: "CANCELED", time: 100, updateTime: 140, isWorking: false },
      want: ['executedQty went from "0.00" to undefined', "isWorking went from undefined to false"],
    },
  ])("$given", ({ after, want }) => {
    expect(changedFields(order, after)).toEqual(want);
  });
});
