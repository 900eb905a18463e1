// announced_rules' omissions (the orders that break a type's rule by leaving one thing out) and
// self-trade prevention modes (which a symbol must refuse, which it must take), given/want.
import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { enumAlong, omissions, stpProbes } from "../src/checks/announced-rules.js";
import { buildContractModel } from "../src/core/operations.js";

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

const MODES = ["NONE", "EXPIRE_MAKER", "EXPIRE_TAKER", "EXPIRE_BOTH", "DECREMENT", "TRANSFER"];

describe("stpProbes: the modes a symbol must refuse, and the allowed one it must take", () => {
  it.each([
    {
      name: "NONE alone allowed (the reference server): every other mode refused, NONE taken",
      given: { allowed: ["NONE"], defaultMode: "NONE" },
      want: { refused: MODES.slice(1), taken: "NONE" },
    },
    {
      name: "an allowed mode other than the default is taken",
      given: { allowed: ["NONE", "EXPIRE_MAKER", "EXPIRE_TAKER"], defaultMode: "NONE" },
      want: { refused: ["EXPIRE_BOTH", "DECREMENT", "TRANSFER"], taken: "EXPIRE_MAKER" },
    },
    {
      name: "a mode the spec does not know is neither sent nor refused",
      given: { allowed: ["EXPIRE_BOTH", "SOMETHING_NEW"], defaultMode: "EXPIRE_BOTH" },
      want: {
        refused: ["NONE", "EXPIRE_MAKER", "EXPIRE_TAKER", "DECREMENT", "TRANSFER"],
        taken: "EXPIRE_BOTH",
      },
    },
    {
      name: "every mode allowed: nothing to refuse",
      given: { allowed: MODES, defaultMode: undefined },
      want: { refused: [], taken: "NONE" },
    },
    {
      name: "no mode of the spec allowed: nothing to take",
      given: { allowed: [], defaultMode: "NONE" },
      want: { refused: MODES, taken: undefined },
    },
  ])("$name", ({ given, want }) => {
    expect(stpProbes(MODES, given.allowed, given.defaultMode)).toEqual(want);
  });
});

describe("enumAlong: the enum of a schema down a path of properties and items", () => {
  const document = {
    components: {
      schemas: {
        Mode: { type: "string", enum: ["NONE", "EXPIRE_MAKER"] },
        Symbol: {
          type: "object",
          properties: { allowed: { type: "array", items: { $ref: "#/components/schemas/Mode" } } },
        },
        Info: {
          type: "object",
          properties: { symbols: { type: "array", items: { $ref: "#/components/schemas/Symbol" } } },
        },
      },
    },
  };
  const info = { $ref: "#/components/schemas/Info" };
  it.each([
    {
      name: "through $refs and items",
      given: ["symbols", "items", "allowed", "items"],
      want: ["NONE", "EXPIRE_MAKER"],
    },
    { name: "a property that is not there", given: ["symbols", "items", "other", "items"], want: [] },
    { name: "a node without an enum", given: ["symbols", "items"], want: [] },
  ])("$name", ({ given, want }) => {
    expect(enumAlong(document, info, given)).toEqual(want);
  });

  it("on the spec: exchange_info's symbols allow the six modes of SelfTradePreventionMode", () => {
    const model = buildContractModel(loadOpenApi());
    const schema = model.operation("exchange_info")!.responses.find((r) => r.status === "200")!.schema;
    const path = ["symbols", "items", "allowedSelfTradePreventionModes", "items"];
    expect(enumAlong(model.document, schema, path)).toEqual(MODES);
  });
});
