import { describe, expect, it } from "vitest";
import { requestWeight, type WeightRule } from "../src/index.js";

const depth: WeightRule = {
  weight: 5,
  parameter: "limit",
  tiers: [
    { upTo: 100, weight: 5 },
    { upTo: 500, weight: 25 },
    { upTo: 1000, weight: 50 },
    { upTo: 5000, weight: 250 },
  ],
};
const openOrders: WeightRule = { weight: 6, parameter: "symbol", absent: 80 };

describe("requestWeight", () => {
  it.each([
    { given: { rule: 20, params: { limit: 900 } }, want: 20 },
    { given: { rule: { weight: 4 }, params: {} }, want: 4 },
    { given: { rule: depth, params: {} }, want: 5 },
    { given: { rule: depth, params: { limit: 1 } }, want: 5 },
    { given: { rule: depth, params: { limit: 100 } }, want: 5 },
    { given: { rule: depth, params: { limit: 101 } }, want: 25 },
    { given: { rule: depth, params: { limit: "501" } }, want: 50 },
    { given: { rule: depth, params: { limit: 5000 } }, want: 250 },
    { given: { rule: depth, params: { limit: 9000 } }, want: 250 },
    { given: { rule: depth, params: { limit: "many" } }, want: 5 },
    { given: { rule: depth, params: { limit: null } }, want: 5 },
    { given: { rule: openOrders, params: { symbol: "BTCUSDT" } }, want: 6 },
    { given: { rule: openOrders, params: {} }, want: 80 },
    { given: { rule: openOrders, params: undefined }, want: 80 },
    {
      given: {
        rule: {
          weight: 2,
          parameter: "symbols",
          tiers: [
            { upTo: 20, weight: 2 },
            { upTo: 100, weight: 40 },
          ],
        },
        params: { symbols: Array.from({ length: 21 }, (_, i) => `S${i}`) },
      },
      want: 40,
    },
  ])("$given.rule with $given.params weighs $want", ({ given, want }) => {
    expect(requestWeight(given.rule, given.params)).toBe(want);
  });
});
