// limit_semantics' small limits (the parameter's minimum, then 2), given/want.
import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { smallLimits } from "../src/checks/limit-semantics.js";
import { buildContractModel, type ContractOperation } from "../src/core/operations.js";

const allOrders = buildContractModel(loadOpenApi()).operation("all_orders")!;
const withMinimum = (minimum: number | undefined): ContractOperation => ({
  ...allOrders,
  parameters: allOrders.parameters.map((p) =>
    p.name === "limit" ? { ...p, resolvedSchema: { ...p.resolvedSchema, minimum } } : p,
  ),
});

describe("smallLimits", () => {
  it.each([
    { name: "the spec's all_orders: its minimum 1, then 2", given: allOrders, want: [1, 2] },
    { name: "a minimum of 2 is SMALL itself", given: withMinimum(2), want: [2] },
    { name: "no minimum", given: withMinimum(undefined), want: [2] },
    { name: "a minimum of 0 is not a page", given: withMinimum(0), want: [2] },
  ])("$name", ({ given, want }) => {
    expect(smallLimits(given, "limit")).toEqual(want);
  });
});
