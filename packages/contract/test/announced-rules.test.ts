// announced_rules' omissions: the orders that break a type's rule by leaving one thing out, given/want.
import { describe, expect, it } from "vitest";
import { omissions } from "../src/checks/announced-rules.js";

const STOP_LIMIT = {
  side: "BUY",
  type: "STOP_LOSS_LIMIT",
  timeInForce: "GTC",
  quantity: "0.001",
  price: "12000",
  stopPrice: "12000",
};

describe("omissions: each thing a type's rule asks for, left out once", () => {
  it.each([
    {
      name: "every required parameter, then the stop group",
      given: {
        rule: {
          required: ["timeInForce", "quantity", "price"],
          atLeastOneOf: [["stopPrice", "trailingDelta"]],
        },
        values: STOP_LIMIT,
      },
      want: [
        { left: ["timeInForce"], required: true },
        { left: ["quantity"], required: true },
        { left: ["price"], required: true },
        { left: ["stopPrice"], required: false },
      ],
    },
    {
      name: "a group left out whole where two of it were sent",
      given: {
        rule: { atLeastOneOf: [["stopPrice", "trailingDelta"]] },
        values: { ...STOP_LIMIT, trailingDelta: "100" },
      },
      want: [{ left: ["stopPrice", "trailingDelta"], required: false }],
    },
    {
      name: "a required parameter the order did not send is not left out again",
      given: { rule: { required: ["icebergQty"] }, values: STOP_LIMIT },
      want: [],
    },
  ])("$name", ({ given, want }) => {
    const got = omissions(given.rule, given.values);
    expect(got.map(({ left, required }) => ({ left, required }))).toEqual(want);
    for (const o of got) for (const name of o.left) expect(o.values).not.toHaveProperty(name);
  });
});
