// What the model gives clients beyond the wire: x-weight with its parameter tiers, x-outcome-lookup,
// x-server-time and the error codes each operation can answer (errorCodesOf); each bad value is a
// SpecModelError naming its pointer (table-driven).
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../dist/index.js";
import {
  buildSpecModel,
  errorCodesOf,
  type JsonObject,
  operationById,
  SpecModelError,
} from "../dist/model/index.js";

const document: JsonObject = loadOpenApi();
const model = buildSpecModel(document);
const byId = (id: string) => operationById(model, id)!;

describe("x-weight", () => {
  it("reads a plain weight and a weight by parameter, keeping the common case in `weight`", () => {
    expect(byId("exchange_info").weightRule).toEqual({ weight: 20 });
    expect(byId("order_book").weight).toBe(5);
    expect(byId("order_book").weightRule).toEqual({
      weight: 5,
      parameter: "limit",
      tiers: [
        { upTo: 100, weight: 5 },
        { upTo: 500, weight: 25 },
        { upTo: 1000, weight: 50 },
        { upTo: 5000, weight: 250 },
      ],
    });
    expect(byId("open_orders").weightRule).toEqual({ weight: 6, parameter: "symbol", absent: 80 });
  });
});

describe("x-outcome-lookup and x-server-time", () => {
  it("new_order is looked up by query_order with its client order id", () => {
    expect(byId("new_order").behaviour.outcomeLookup).toEqual({
      operation: "query_order",
      key: "newClientOrderId",
      parameters: { symbol: "symbol", origClientOrderId: "newClientOrderId" },
      filledFrom: "live-api",
    });
  });

  it("server_time holds the server's clock at /serverTime", () => {
    expect(byId("server_time").behaviour.serverTime).toEqual({
      field: "/serverTime",
      filledFrom: "live-api",
    });
  });
});

describe("errorCodesOf", () => {
  const codes = (id: string) => errorCodesOf(model, byId(id)).map((c) => c.code);

  it.each([
    // ping's only parameter is the time-unit header: a bad value, never a repeated parameter.
    { given: "ping", want: [-1003, -1100, -1194] },
    { given: "order_book", want: [-1003, -1100, -1101, -1102, -1121, -1194] },
    { given: "all_orders", wantIncludes: [-1127, -1021, -1022, -2014, -2015] },
    {
      given: "new_order",
      wantIncludes: [-1013, -2010, -1015, -1117, -1116, -1115, -1114, -1106, -1021, -1022],
    },
    { given: "cancel_order", wantIncludes: [-2011, -2039] },
  ])("$given", ({ given, want, wantIncludes }) => {
    if (want) expect(codes(given)).toEqual(want);
    for (const code of wantIncludes ?? []) expect(codes(given)).toContain(code);
  });

  it("names the rules behind each code, with its status where the spec says", () => {
    const codes = errorCodesOf(model, byId("new_order"));
    expect(codes.find((c) => c.code === -2010)).toEqual({
      code: -2010,
      status: 400,
      rules: ["parameter-condition", "order-type-not-allowed", "would-take", "duplicate-client-order-id"],
    });
    expect(codes.find((c) => c.code === -1021)).toEqual({ code: -1021, rules: ["invalid-timestamp"] });
  });

  it("states no signing codes for an operation that is not signed, nor order codes where no order is placed", () => {
    expect(codes("order_book")).not.toContain(-1021);
    expect(codes("order_book")).not.toContain(-2010);
  });
});

const at = (path: string, method: string) => (d: JsonObject) => d.paths[path][method] as JsonObject;
const depth = at("/api/v3/depth", "get");
const post = at("/api/v3/order", "post");
const time = at("/api/v3/time", "get");

const faults: { given: string; edit: (d: JsonObject) => void; pointer: string; want: RegExp }[] = [
  {
    given: "a weight by a parameter the operation does not declare",
    edit: (d) => (depth(d)["x-weight"].parameter = "size"),
    pointer: "/paths/~1api~1v3~1depth/get/x-weight/parameter",
    want: /parameter of the operation/,
  },
  {
    given: "tiers out of order",
    edit: (d) => (depth(d)["x-weight"].tiers[1].upTo = 50),
    pointer: "/paths/~1api~1v3~1depth/get/x-weight/tiers/1/upTo",
    want: /above the previous tier's \(100\)/,
  },
  {
    given: "a weight by parameter that says neither tiers nor absent",
    edit: (d) => delete depth(d)["x-weight"].tiers,
    pointer: "/paths/~1api~1v3~1depth/get/x-weight",
    want: /absent or tiers/,
  },
  {
    given: "an unknown key in a weight rule",
    edit: (d) => (depth(d)["x-weight"].per = "minute"),
    pointer: "/paths/~1api~1v3~1depth/get/x-weight/per",
    want: /one of weight, parameter, absent, tiers/,
  },
  {
    given: "a negative weight",
    edit: (d) => (depth(d)["x-weight"] = -5),
    pointer: "/paths/~1api~1v3~1depth/get/x-weight",
    want: /whole number of at least 0/,
  },
  {
    given: "a lookup operation the document does not hold",
    edit: (d) => (post(d)["x-outcome-lookup"].operation = "get_order"),
    pointer: "/paths/~1api~1v3~1order/post/x-outcome-lookup/operation",
    want: /operationId of an operation/,
  },
  {
    given: "a lookup that says nothing of unknown orders",
    edit: (d) => delete at("/api/v3/order", "get")(d)["x-unknown-reference"].order,
    pointer: "/paths/~1api~1v3~1order/post/x-outcome-lookup/operation",
    want: /refuses an unknown order/,
  },
  {
    given: "a lookup operation without the parameters it is sent with",
    edit: (d) => (post(d)["x-outcome-lookup"].operation = "open_orders"),
    pointer: "/paths/~1api~1v3~1order/post/x-outcome-lookup/parameters/origClientOrderId",
    want: /a parameter of open_orders/,
  },
  {
    given: "a lookup parameter taken from a parameter the request does not declare",
    edit: (d) => (post(d)["x-outcome-lookup"].parameters.origClientOrderId = "clientId"),
    pointer: "/paths/~1api~1v3~1order/post/x-outcome-lookup/parameters/origClientOrderId",
    want: /parameter of the operation/,
  },
  {
    given: "a lookup that never takes the key",
    edit: (d) => (post(d)["x-outcome-lookup"].parameters = { symbol: "symbol" }),
    pointer: "/paths/~1api~1v3~1order/post/x-outcome-lookup/parameters",
    want: /takes the key \(newClientOrderId\)/,
  },
  {
    given: "a server time field that is not a JSON Pointer",
    edit: (d) => (time(d)["x-server-time"].field = "serverTime"),
    pointer: "/paths/~1api~1v3~1time/get/x-server-time/field",
    want: /JSON Pointer/,
  },
];

describe("faults", () => {
  it.each(faults)("$given", ({ edit, pointer, want }) => {
    const copy = structuredClone(document);
    edit(copy);
    let caught: unknown;
    try {
      buildSpecModel(copy);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SpecModelError);
    expect((caught as SpecModelError).pointer).toBe(pointer);
    expect((caught as SpecModelError).message).toMatch(want);
  });
});
