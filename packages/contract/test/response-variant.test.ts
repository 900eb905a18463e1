// The variant answered is the variant asked (response_schema_conformance's largerVariantClaimed), given/want.
import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { largerVariantClaimed } from "../src/checks/response-schema-conformance.js";
import { buildContractModel } from "../src/core/operations.js";

const shapes = buildContractModel(loadOpenApi()).operation("new_order")!.responseVariants!.shapes;
const ACK = { symbol: "BTCUSDT", orderId: 1, orderListId: -1, clientOrderId: "a", transactTime: 1 };
const RESULT = { ...ACK, status: "NEW", executedQty: "0", origQty: "1", workingTime: 1 };
const FULL = { ...RESULT, fills: [] };

describe("largerVariantClaimed: an answer larger than the variant asked", () => {
  it.each([
    { name: "ACK asked, ACK answered", given: { asked: "ACK", body: ACK }, want: undefined },
    { name: "FULL asked, FULL answered", given: { asked: "FULL", body: FULL }, want: undefined },
    { name: "RESULT asked, RESULT answered", given: { asked: "RESULT", body: RESULT }, want: undefined },
    {
      name: "a smaller answer is the schema's to refuse",
      given: { asked: "FULL", body: ACK },
      want: undefined,
    },
    { name: "ACK asked, FULL answered", given: { asked: "ACK", body: FULL }, want: "FULL" },
    { name: "ACK asked, RESULT answered", given: { asked: "ACK", body: RESULT }, want: "RESULT" },
    { name: "RESULT asked, FULL answered", given: { asked: "RESULT", body: FULL }, want: "FULL" },
    { name: "a variant the shapes do not name", given: { asked: "NONE", body: FULL }, want: undefined },
  ])("$name", ({ given, want }) => {
    expect(largerVariantClaimed(shapes, given.asked, given.body)?.variant).toBe(want);
  });
});
