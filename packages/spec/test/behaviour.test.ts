// The behaviour extensions read by @marketapi/spec/model: their values on the spec, and the fault
// each bad value gives (table-driven: given a document edit, want the pointer and the message).
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../dist/index.js";
import {
  BEHAVIOUR_EXTENSIONS,
  buildSpecModel,
  type JsonObject,
  SpecModelError,
} from "../dist/model/index.js";

const document: JsonObject = loadOpenApi();
const model = buildSpecModel(document);
const byId = (id: string) => model.operations.find((o) => o.operationId === id)!;

describe("behaviour extensions on the spec", () => {
  it("every list answer states its order", () => {
    expect(byId("order_book").behaviour.listOrder?.lists).toEqual([
      { list: "/bids", field: "/0", direction: "descending", strict: true },
      { list: "/asks", field: "/0", direction: "ascending", strict: true },
    ]);
    for (const id of ["recent_trades_list", "historical_trades", "aggTrades", "all_orders"]) {
      expect(byId(id).behaviour.listOrder?.lists[0]?.direction, id).toBe("ascending");
    }
  });

  it("paging, windows and limits as the live API has them, each marked as filled from it", () => {
    expect(byId("historical_trades").behaviour.cursorPaging).toMatchObject({
      parameter: "fromId",
      field: "/id",
      inclusive: true,
      contiguous: true,
    });
    expect(byId("all_orders").behaviour.timeWindow).toMatchObject({
      maxSpanMs: 86_400_000,
      tooWideCode: -1127,
    });
    expect(byId("aggTrades").behaviour.timeWindow?.maxSpanMs).toBeUndefined();
    expect(byId("order_book").behaviour.limit).toMatchObject({ maximum: 5000, aboveMaximum: "truncate" });
    expect(byId("recent_trades_list").behaviour.limit).toMatchObject({
      default: 500,
      aboveMaximum: "refuse",
    });
    for (const operation of model.operations) {
      for (const part of Object.values(operation.behaviour)) expect(part.filledFrom).toBe("live-api");
    }
  });

  it("x-limit agrees with the limit parameter's schema where it declares a default or maximum", () => {
    for (const operation of model.operations) {
      const rule = operation.behaviour.limit;
      if (!rule) continue;
      const schema = operation.parameters.find((p) => p.name === rule.parameter)?.schema as JsonObject;
      expect(schema.maximum, operation.operationId).toBe(rule.maximum);
      if (schema.default !== undefined) expect(schema.default, operation.operationId).toBe(rule.default);
    }
  });

  it("every operation with a symbol parameter names the error of an unknown symbol", () => {
    for (const operation of model.operations) {
      if (!operation.parameters.some((p) => p.name === "symbol")) continue;
      expect(operation.behaviour.unknownReferences?.symbol?.code, operation.operationId).toBe(-1121);
    }
    expect(byId("query_order").behaviour.unknownReferences?.order?.code).toBe(-2013);
    expect(byId("cancel_order").behaviour.unknownReferences?.order?.code).toBe(-2011);
  });

  it("new_order states the arithmetic of its answer", () => {
    expect(byId("new_order").behaviour.orderArithmetic).toMatchObject({
      executedQty: "executedQty",
      quoteQty: "cummulativeQuoteQty",
      neverRest: ["IOC", "FOK"],
      allOrNothing: ["FOK"],
    });
  });

  it("lists each behaviour key once", () => {
    expect(Object.keys(BEHAVIOUR_EXTENSIONS)).toHaveLength(9);
  });
});

const at = (path: string, method: string) => (d: JsonObject) => d.paths[path][method] as JsonObject;
const depth = at("/api/v3/depth", "get");
const agg = at("/api/v3/aggTrades", "get");
const info = at("/api/v3/exchangeInfo", "get");
const query = at("/api/v3/order", "get");
const post = at("/api/v3/order", "post");

const faults: { given: string; edit: (d: JsonObject) => void; pointer: string; want: RegExp }[] = [
  {
    given: "an unknown sort direction",
    edit: (d) => (depth(d)["x-list-order"].lists[0].direction = "up"),
    pointer: "/paths/~1api~1v3~1depth/get/x-list-order/lists/0/direction",
    want: /one of ascending, descending/,
  },
  {
    given: "a field that is not a JSON Pointer",
    edit: (d) => (agg(d)["x-list-order"].lists[0].field = "a"),
    pointer: "/paths/~1api~1v3~1aggTrades/get/x-list-order/lists/0/field",
    want: /JSON Pointer/,
  },
  {
    given: "no filledFrom",
    edit: (d) => delete depth(d)["x-limit"].filledFrom,
    pointer: "/paths/~1api~1v3~1depth/get/x-limit/filledFrom",
    want: /live-api/,
  },
  {
    given: "a cursor that is not a parameter",
    edit: (d) => (agg(d)["x-cursor-paging"].parameter = "cursor"),
    pointer: "/paths/~1api~1v3~1aggTrades/get/x-cursor-paging/parameter",
    want: /parameter of the operation/,
  },
  {
    given: "a negative maximum span",
    edit: (d) => Object.assign(agg(d)["x-time-window"], { maxSpanMs: -1, tooWideCode: -1127 }),
    pointer: "/paths/~1api~1v3~1aggTrades/get/x-time-window/maxSpanMs",
    want: /positive/,
  },
  {
    given: "an unknown window anchor",
    edit: (d) => (agg(d)["x-time-window"].endAlone = "oldest"),
    pointer: "/paths/~1api~1v3~1aggTrades/get/x-time-window/endAlone",
    want: /oldest-from-start/,
  },
  {
    given: "a default above the maximum",
    edit: (d) => (depth(d)["x-limit"].default = 6000),
    pointer: "/paths/~1api~1v3~1depth/get/x-limit/default",
    want: /1\.\.maximum/,
  },
  {
    given: "an unknown behaviour above the maximum",
    edit: (d) => (depth(d)["x-limit"].aboveMaximum = "ignore"),
    pointer: "/paths/~1api~1v3~1depth/get/x-limit/aboveMaximum",
    want: /truncate, refuse/,
  },
  {
    given: "a result filter that lets an unknown value through",
    edit: (d) => (info(d)["x-result-filter"].unknown = "empty"),
    pointer: "/paths/~1api~1v3~1exchangeInfo/get/x-result-filter/unknown",
    want: /error/,
  },
  {
    given: "an unknown-order error with a 5xx status",
    edit: (d) => (query(d)["x-unknown-reference"].order.status = 500),
    pointer: "/paths/~1api~1v3~1order/get/x-unknown-reference/order/status",
    want: /4xx/,
  },
  {
    given: "order arithmetic without a status rule",
    edit: (d) => delete post(d)["x-order-arithmetic"].status.all,
    pointer: "/paths/~1api~1v3~1order/post/x-order-arithmetic/status/all",
    want: /list of strings/,
  },
];

describe("behaviour extension faults", () => {
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
