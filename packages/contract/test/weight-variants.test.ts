// rate_counters' weight variants: each other weight x-weight states for an operation, as values.
import { describe, expect, it } from "vitest";
import { weightVariants } from "../src/checks/rate-counters.js";
import type { ContractOperation } from "../src/core/operations.js";

const operation = (weightRule: ContractOperation["weightRule"], required = false) =>
  ({
    weightRule,
    parameters: [{ name: weightRule.parameter ?? "x", required }],
  }) as unknown as ContractOperation;

describe("weightVariants", () => {
  it.each([
    { name: "one weight: none", given: operation({ weight: 20 }), want: [] },
    {
      name: "tiers: each tier's top value but the common case's weight",
      given: operation({
        weight: 5,
        parameter: "limit",
        tiers: [
          { upTo: 100, weight: 5 },
          { upTo: 500, weight: 25 },
          { upTo: 5000, weight: 250 },
        ],
      }),
      want: [
        { symbol: "BTCUSDT", limit: 500 },
        { symbol: "BTCUSDT", limit: 5000 },
      ],
    },
    {
      name: "absent: the parameter left out",
      given: operation({ weight: 2, parameter: "symbol", absent: 80 }),
      want: [{}],
    },
    {
      name: "absent of a required parameter: none",
      given: operation({ weight: 2, parameter: "symbol", absent: 80 }, true),
      want: [],
    },
    {
      name: "absent that weighs the same: the read without its symbol still",
      given: operation({ weight: 2, parameter: "symbol", absent: 2 }),
      want: [{}],
    },
    {
      name: "one weight and an optional symbol: the read without it",
      given: {
        weightRule: { weight: 2 },
        parameters: [{ name: "symbol", required: false }],
      } as unknown as ContractOperation,
      want: [{}],
    },
  ])("$name", ({ given, want }) => {
    expect(weightVariants(given, { symbol: "BTCUSDT" })).toEqual(want);
  });
});
