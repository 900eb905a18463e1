import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import {
  responseValidator,
  schemaNames,
  type ValidationError,
  validateResponse,
  validateSchema,
} from "../src/index.js";
import { faults, newOrderFull, responseExamples, schemaExamples } from "./support.js";

/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildSpecModel(loadOpenApi()).operations.length;

function errorsOf(result: ReturnType<typeof validateResponse>): ValidationError[] {
  return result.valid ? [] : result.errors;
}

const order = (): Record<string, unknown> =>
  structuredClone(
    responseExamples().find((e) => e.operationId === "query_order" && e.status === "200")!.body,
  ) as Record<string, unknown>;

describe("the spec's examples", () => {
  const examples = responseExamples();

  it("cover every operation", () => {
    expect(new Set(examples.map((e) => e.operationId)).size).toBe(operationCount);
  });

  it.each(examples)("$operationId $status ($name) is valid", ({ operationId, status, body }) => {
    expect(validateResponse(operationId, status, body)).toEqual({ valid: true });
    if (/^[0-9]+$/.test(status))
      expect(validateResponse(operationId, Number(status), body)).toEqual({ valid: true });
  });

  it.each(schemaExamples())("the example of schema $name is valid", ({ name, example }) => {
    expect(validateSchema(name, example)).toEqual({ valid: true });
  });

  it("the new_order example is the FULL variant", () => {
    expect(validateResponse("new_order", 200, newOrderFull(), { variant: "FULL" })).toEqual({ valid: true });
    expect(
      validateResponse("new_order", 200, newOrderFull(), { request: { newOrderRespType: "FULL" } }),
    ).toEqual({
      valid: true,
    });
  });
});

describe("wrong responses", () => {
  it.each([
    {
      given: "a price as a number",
      body: { ...order(), price: 0.1 },
      want: [
        {
          path: "/price",
          rule: "type",
          message: '/price must be a decimal number written as text such as "0.00010000"',
        },
      ],
    },
    {
      given: "a price that is not decimal text",
      body: { ...order(), price: "1e-7" },
      want: [
        {
          path: "/price",
          rule: "pattern",
          message: '/price must be a decimal number written as text such as "0.00010000"',
        },
      ],
    },
    {
      given: "a missing field",
      body: (({ status: _, ...rest }) => rest)(order()),
      want: [{ path: "/status", rule: "required", message: "/status is required" }],
    },
    {
      given: "an unknown order status",
      body: { ...order(), status: "PAUSED" },
      want: [
        {
          path: "/status",
          rule: "enum",
          message:
            '/status must be one of "NEW", "PENDING_NEW", "PARTIALLY_FILLED", "FILLED", "CANCELED", "PENDING_CANCEL", "REJECTED", "EXPIRED" or "EXPIRED_IN_MATCH"',
        },
      ],
    },
    {
      given: "a time as text",
      body: { ...order(), time: "2024-01-01" },
      want: [{ path: "/time", rule: "type", message: "/time must be a timestamp such as 1499827319559" }],
    },
  ])("query_order 200 with $given fails", ({ body, want }) => {
    expect(validateResponse("query_order", 200, body)).toEqual({ valid: false, errors: faults(want) });
  });

  it("an error body with a positive code fails", () => {
    expect(validateResponse("ping", 400, { code: 1, msg: "x" })).toEqual({
      valid: false,
      errors: faults([{ path: "/code", rule: "maximum", message: "/code must be at most -1" }]),
    });
  });

  it("a non-empty ping body fails", () => {
    expect(errorsOf(validateResponse("ping", 200, { pong: true })).map((e) => e.message)).toEqual([
      "the body must have no properties",
      "/pong is not a property of Empty",
    ]);
  });

  it("an order book level with three entries fails at the level", () => {
    const body = { lastUpdateId: 1, bids: [["1.0", "2.0", "3.0"]], asks: [] };
    expect(validateResponse("order_book", 200, body)).toEqual({
      valid: false,
      errors: faults([{ path: "/bids/0", rule: "maxItems", message: "/bids/0 must have at most 2 items" }]),
    });
  });

  it("a ticker that is neither an object nor an array fails once, naming both shapes", () => {
    expect(validateResponse("symbol_price_ticker", 200, "LTCBTC")).toEqual({
      valid: false,
      errors: faults([{ path: "", rule: "type", message: "the body must be an object or an array" }]),
    });
  });

  it("a ticker list explains the faulty item through the array branch", () => {
    expect(validateResponse("symbol_price_ticker", 200, [{ symbol: "LTCBTC", price: 4 }])).toEqual({
      valid: false,
      errors: faults([
        {
          path: "/0/price",
          rule: "type",
          message: '/0/price must be a decimal number written as text such as "0.00010000"',
        },
      ]),
    });
  });

  it("a symbol filter is explained through the branch its filterType selects", () => {
    const exchange = responseExamples().find((e) => e.operationId === "exchange_info")!.body as {
      symbols: { filters: Record<string, unknown>[] }[];
    };
    const body = structuredClone(exchange);
    body.symbols[0]!.filters[0] = { filterType: "PRICE_FILTER", minPrice: 0, maxPrice: "1", tickSize: "1" };
    body.symbols[0]!.filters[1] = { filterType: "SIZE" };
    const errors = errorsOf(validateResponse("exchange_info", 200, body));
    expect(errors[0]).toEqual({
      path: "/symbols/0/filters/0/minPrice",
      rule: "type",
      keyword: "type",
      params: { type: ["string"] },
      message: '/symbols/0/filters/0/minPrice must be a decimal number written as text such as "0.00010000"',
    });
    expect(errors[1]).toMatchObject({ path: "/symbols/0/filters/1/filterType", rule: "enum" });
    expect(errors[1]!.message).toContain('"PRICE_FILTER", "PERCENT_PRICE"');
    expect(errors).toHaveLength(2);
  });
});

describe("x-response-variant-by (new_order)", () => {
  const full = newOrderFull();
  const { fills: _, ...result } = full;

  it("without a variant, a FULL body missing fills passes as the RESULT it claims to be", () => {
    expect(validateResponse("new_order", 200, result)).toEqual({ valid: true });
  });

  it("with the FULL variant, the missing fills are reported", () => {
    const want = {
      valid: false,
      errors: faults([{ path: "/fills", rule: "required", message: "/fills is required" }]),
    };
    expect(validateResponse("new_order", 200, result, { variant: "FULL" })).toEqual(want);
    expect(validateResponse("new_order", "200", result, { request: { newOrderRespType: "FULL" } })).toEqual(
      want,
    );
    // The declared default of newOrderRespType is FULL.
    expect(validateResponse("new_order", 200, result, { request: { symbol: "BTCUSDT" } })).toEqual(want);
  });

  it("RESULT and ACK are chosen the same way", () => {
    expect(validateResponse("new_order", 200, result, { variant: "RESULT" })).toEqual({ valid: true });
    expect(validateResponse("new_order", 200, { symbol: "BTCUSDT" }, { variant: "ACK" })).toEqual({
      valid: false,
      errors: faults([
        { path: "/orderId", rule: "required", message: "/orderId is required" },
        { path: "/orderListId", rule: "required", message: "/orderListId is required" },
        { path: "/clientOrderId", rule: "required", message: "/clientOrderId is required" },
        { path: "/transactTime", rule: "required", message: "/transactTime is required" },
      ]),
    });
  });

  it("without a variant, errors come from the closest variant", () => {
    expect(validateResponse("new_order", 200, { ...full, orderId: "28" })).toEqual({
      valid: false,
      errors: faults([
        { path: "/orderId", rule: "type", message: "/orderId must be an order id value such as 28" },
      ]),
    });
  });

  it("variants apply to the success response only", () => {
    expect(validateResponse("new_order", 400, { code: -2010, msg: "rejected" }, { variant: "FULL" })).toEqual(
      {
        valid: true,
      },
    );
  });

  describe("without a variant or request, the body is checked as the variant its shape claims", () => {
    const table: { name: string; given: unknown; want: { path: string; rule: string }[] }[] = [
      { name: "a FULL body", given: full, want: [] },
      { name: "a RESULT body", given: result, want: [] },
      {
        name: "an ACK body",
        given: { symbol: "BTCUSDT", orderId: 1, orderListId: -1, clientOrderId: "a", transactTime: 1 },
        want: [],
      },
      {
        name: "RESULT fields with fills that are not an array",
        given: { ...result, fills: "nope" },
        want: [{ path: "/fills", rule: "type" }],
      },
      {
        name: "a fill whose tradeId is a string",
        given: { ...full, fills: [{ ...(full.fills as object[])[0], tradeId: "56" }] },
        want: [{ path: "/fills/0/tradeId", rule: "type" }],
      },
      {
        name: "a fill without its commission",
        given: { ...full, fills: [{ price: "1.0", qty: "1.0", commissionAsset: "USDT", tradeId: 1 }] },
        want: [{ path: "/fills/0/commission", rule: "required" }],
      },
      {
        name: "fills on a body without the order's state (a FULL missing its RESULT fields)",
        given: {
          symbol: "BTCUSDT",
          orderId: 1,
          orderListId: -1,
          clientOrderId: "a",
          transactTime: 1,
          fills: [],
        },
        want: [{ path: "/price", rule: "required" }],
      },
      {
        name: "an ACK with part of the order's state (a RESULT missing fields)",
        given: {
          symbol: "BTCUSDT",
          orderId: 1,
          orderListId: -1,
          clientOrderId: "a",
          transactTime: 1,
          status: "NEW",
        },
        want: [{ path: "/price", rule: "required" }],
      },
    ];
    it.each(table)("$name", ({ given, want }) => {
      const check = validateResponse("new_order", 200, given);
      expect(check.valid).toBe(want.length === 0);
      for (const error of want) expect(errorsOf(check)).toContainEqual(expect.objectContaining(error));
    });

    it("responseValidator without options claims the same way", () => {
      const check = responseValidator("new_order", 200);
      expect(check(full)).toEqual({ valid: true });
      expect(check({ ...result, fills: "nope" }).valid).toBe(false);
      expect(check(result)).toEqual({ valid: true });
    });
  });

  it("an unknown variant, or a variant for an operation without variants, is an error result", () => {
    expect(errorsOf(validateResponse("new_order", 200, full, { variant: "MINI" }))[0]).toMatchObject({
      rule: "x-response-variant-by",
    });
    expect(errorsOf(validateResponse("query_order", 200, order(), { variant: "FULL" }))[0]).toMatchObject({
      rule: "x-response-variant-by",
    });
  });
});

describe("x-response-variant-by by presence (the tickers)", () => {
  const one = { symbol: "BTCUSDT", price: "1.00" };

  it("a request with symbol gets one object, one without gets an array", () => {
    expect(validateResponse("symbol_price_ticker", 200, one, { request: { symbol: "BTCUSDT" } })).toEqual({
      valid: true,
    });
    expect(validateResponse("symbol_price_ticker", 200, [one], { request: {} })).toEqual({ valid: true });
    expect(
      validateResponse("symbol_price_ticker", 200, [one], { request: { symbol: "BTCUSDT" } }).valid,
    ).toBe(false);
    expect(validateResponse("symbol_price_ticker", 200, one, { request: {} }).valid).toBe(false);
    expect(validateResponse("symbol_price_ticker", 200, one, { variant: "present" })).toEqual({
      valid: true,
    });
  });

  it("without a request, the body's type claims the variant, and its errors are that variant's", () => {
    expect(validateResponse("symbol_price_ticker", 200, one)).toEqual({ valid: true });
    expect(validateResponse("symbol_price_ticker", 200, [one, one])).toEqual({ valid: true });
    expect(errorsOf(validateResponse("symbol_price_ticker", 200, [{ ...one, price: 1 }]))).toEqual([
      expect.objectContaining({ path: "/0/price", rule: "type" }),
    ]);
    expect(validateResponse("symbol_price_ticker", 200, "BTCUSDT").valid).toBe(false);
  });
});

describe("statuses", () => {
  const error = { code: -1000, msg: "An unknown error occurred while processing the request." };

  it("a 5XX range covers 500 to 599; exact codes and the range may be given as text", () => {
    for (const status of [500, 503, 599, "503", "5XX", "5xx"]) {
      expect(validateResponse("ping", status, error)).toEqual({ valid: true });
    }
  });

  it.each([302, 404, "404", "4XX", "default"])("undocumented status %j is an error result", (status) => {
    const errors = errorsOf(validateResponse("ping", status, error));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ path: "", rule: "status" });
    expect(errors[0]!.message).toContain("documented: 200, 400, 403, 418, 429, 5XX");
  });

  it.each([99, 600, 200.5, "ok", "", Number.NaN, null])("status %j is not a status code", (status) => {
    const errors = errorsOf(validateResponse("ping", status as number, {}));
    expect(errors[0]).toMatchObject({ path: "", rule: "status" });
  });

  it("an unknown operation is an error result", () => {
    expect(errorsOf(validateResponse("pong", 200, {}))[0]).toMatchObject({ rule: "operationId" });
  });
});

describe("validateSchema", () => {
  it("knows every named schema and nothing else", () => {
    expect(schemaNames).toContain("Order");
    expect(errorsOf(validateSchema("Nope", {}))[0]).toMatchObject({ rule: "schema" });
    expect(errorsOf(validateSchema("__proto__", {}))[0]).toMatchObject({ rule: "schema" });
  });

  it("checks a value against one", () => {
    expect(validateSchema("Decimal", "0.1")).toEqual({ valid: true });
    expect(validateSchema("Decimal", 0.1)).toEqual({
      valid: false,
      errors: faults([
        {
          path: "",
          rule: "type",
          message: 'the value must be a decimal number written as text such as "0.00010000"',
        },
      ]),
    });
  });
});
