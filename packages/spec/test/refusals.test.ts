// x-refusals read by @marketapi/spec/model: the spec names the code of every refusal rule it
// states (none unnamed), the lookups answer per operation and parameter, and each bad value is a
// SpecModelError naming its pointer (table-driven).
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../dist/index.js";
import {
  buildSpecModel,
  type JsonObject,
  refusalFor,
  resolveRef,
  SpecModelError,
  unnamedRefusals,
} from "../dist/model/index.js";

const document: JsonObject = loadOpenApi();
const model = buildSpecModel(document);
const resolve = (schema: unknown) => resolveRef(document, schema, "") as Record<string, unknown>;

describe("x-refusals on the spec", () => {
  it("names a code for every refusal rule the spec states, each filled from the live API", () => {
    expect(unnamedRefusals(model, resolve)).toEqual([]);
    expect(model.refusals?.filledFrom).toBe("live-api");
  });

  it.each([
    ["missing-parameter", "order_book", undefined, 400, -1102],
    ["unknown-enum-value", "new_order", "side", 400, -1117],
    ["unknown-enum-value", "new_order", "newOrderRespType", 400, -1100],
    ["parameter-not-required", "new_order", "timeInForce", 400, -1114],
    ["malformed-value", "new_order", "recvWindow", 400, -1100],
    ["recv-window-too-large", "new_order", undefined, 400, -1102],
    ["ids-disagree", "query_order", undefined, 400, -2039],
    ["api-key-invalid", "open_orders", undefined, 401, -2015],
  ] as const)("%s on %s (%s): %i %i", (rule, operationId, parameter, status, code) => {
    expect(refusalFor(model.refusals, rule, operationId, parameter)).toEqual({ status, code });
  });

  it("answers nothing where a rule is limited to other operations", () => {
    expect(refusalFor(model.refusals, "would-take", "cancel_order")).toBeUndefined();
  });

  it("finds a stated rule without a code: the spec without its ids-disagree", () => {
    const copy = structuredClone(document);
    delete ((copy["x-refusals"] as JsonObject).rules as JsonObject)["ids-disagree"];
    const stripped = buildSpecModel(copy);
    expect(unnamedRefusals(stripped, resolve)).toEqual([
      "ids-disagree (query_order: an order named by two ids)",
    ]);
  });
});

describe("x-refusals faults", () => {
  const cases: Array<{ given: unknown; pointer: string; message: RegExp }> = [
    { given: "codes", pointer: "/x-refusals", message: /an object \{ filledFrom, rules \}/ },
    { given: { filledFrom: "somewhere", rules: {} }, pointer: "/x-refusals/filledFrom", message: /live-api/ },
    {
      given: { filledFrom: "live-api", rules: { "no-such-rule": { status: 400, code: -1 } } },
      pointer: "/x-refusals/rules/no-such-rule",
      message: /one of the rules missing-parameter/,
    },
    {
      given: { filledFrom: "live-api", rules: { "would-take": { status: 200, code: -2010 } } },
      pointer: "/x-refusals/rules/would-take/status",
      message: /a 4xx status/,
    },
    {
      given: { filledFrom: "live-api", rules: { "would-take": { status: 400, code: 2010 } } },
      pointer: "/x-refusals/rules/would-take/code",
      message: /a negative error code/,
    },
    {
      given: {
        filledFrom: "live-api",
        rules: { "would-take": { status: 400, code: -2010, operations: [] } },
      },
      pointer: "/x-refusals/rules/would-take/operations",
      message: /a non-empty list of operationIds/,
    },
  ];
  it.each(cases)("$pointer", ({ given, pointer, message }) => {
    const copy = structuredClone(document);
    copy["x-refusals"] = given as JsonObject;
    let error: unknown;
    try {
      buildSpecModel(copy);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SpecModelError);
    expect((error as SpecModelError).pointer).toBe(pointer);
    expect((error as Error).message).toMatch(message);
  });
});
