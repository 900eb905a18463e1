import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import { operationIds, parseRequest, type ValidationError, validateRequest } from "../src/index.js";
import { faults, limitOrder } from "./support.js";

/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildSpecModel(loadOpenApi()).operations.length;

function errorsOf(result: ReturnType<typeof validateRequest>): ValidationError[] {
  return result.valid ? [] : result.errors;
}

describe("validateRequest: plain parameters", () => {
  it("accepts valid parameters of every operation with required parameters filled", () => {
    expect(validateRequest("ping", {})).toEqual({ valid: true });
    expect(validateRequest("order_book", { symbol: "BTCUSDT", limit: 5 })).toEqual({ valid: true });
    expect(validateRequest("exchange_info", { symbols: ["BTCUSDT", "ETHUSDT"] })).toEqual({ valid: true });
    expect(validateRequest("aggTrades", { symbol: "BTCUSDT", startTime: "2024-01-01T00:00:00Z" })).toEqual({
      valid: true,
    });
    expect(validateRequest("new_order", limitOrder)).toEqual({ valid: true });
  });

  it("treats undefined values as absent", () => {
    expect(validateRequest("order_book", { symbol: "BTCUSDT", limit: undefined })).toEqual({ valid: true });
  });

  it("accepts the signing envelope of signed operations, and rejects it elsewhere", () => {
    const envelope = { timestamp: 1499827319559, signature: "a".repeat(64) };
    expect(validateRequest("query_order", { symbol: "BTCUSDT", orderId: 1, ...envelope })).toEqual({
      valid: true,
    });
    expect(
      errorsOf(validateRequest("order_book", { symbol: "BTCUSDT", ...envelope })).map((e) => e.path),
    ).toEqual(["/timestamp", "/signature"]);
  });

  it("accepts recvWindow only where the spec declares it (new_order)", () => {
    const order = { symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: 1 };
    expect(validateRequest("new_order", { ...order, recvWindow: 5000 })).toEqual({ valid: true });
    expect(errorsOf(validateRequest("new_order", { ...order, recvWindow: 60001 }))).toEqual(
      faults([{ path: "/recvWindow", rule: "maximum", message: "/recvWindow must be at most 60000" }]),
    );
    for (const id of ["cancel_order", "cancel_all_orders", "query_order", "open_orders", "all_orders"]) {
      const params = { symbol: "BTCUSDT", orderId: 1, recvWindow: 5000 };
      expect(
        errorsOf(validateRequest(id, params)).map((e) => e.message),
        id,
      ).toContain(`/recvWindow is not a parameter of ${id}`);
    }
  });

  it.each([
    ["epoch milliseconds", "symbol=BTCUSDT&startTime=1704067200000", 1704067200000],
    ["RFC 3339 text", "symbol=BTCUSDT&startTime=2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"],
    [
      "RFC 3339 text with an offset",
      "symbol=BTCUSDT&startTime=2024-01-01T01:00:00%2B01:00",
      "2024-01-01T01:00:00+01:00",
    ],
  ])("aggTrades takes a date_time as %s", (_label, query, want) => {
    expect(parseRequest("aggTrades", query)).toEqual({
      valid: true,
      params: { symbol: "BTCUSDT", startTime: want },
    });
  });

  it.each([
    ["yesterday", "format"],
    ["1.5", "format"],
    ["-5", "minimum"],
  ])("aggTrades refuses the date_time %s", (text, rule) => {
    const result = parseRequest("aggTrades", `symbol=BTCUSDT&startTime=${text}`);
    expect(result.valid).toBe(false);
    expect(result.valid ? [] : result.errors.map((e) => [e.path, e.rule])).toEqual([["/startTime", rule]]);
  });

  it("requires the envelope with { signed: true }", () => {
    expect(errorsOf(validateRequest("query_order", { symbol: "BTCUSDT" }, { signed: true }))).toEqual(
      faults([
        { path: "/timestamp", rule: "required", message: "/timestamp is required (signed request)" },
        { path: "/signature", rule: "required", message: "/signature is required (signed request)" },
      ]),
    );
    expect(validateRequest("order_book", { symbol: "BTCUSDT" }, { signed: true })).toEqual({ valid: true });
  });

  it.each([
    {
      given: "a missing required parameter",
      operation: "order_book",
      params: {},
      want: [{ path: "/symbol", rule: "required", message: "/symbol is required" }],
    },
    {
      given: "an unknown parameter",
      operation: "order_book",
      params: { symbol: "BTCUSDT", depth: 5 },
      want: [
        { path: "/depth", rule: "additionalProperties", message: "/depth is not a parameter of order_book" },
      ],
    },
    {
      given: "symbol and symbols together (x-mutually-exclusive)",
      operation: "exchange_info",
      params: { symbol: "BTCUSDT", symbols: ["BTCUSDT"] },
      want: [
        {
          path: "/symbols",
          rule: "x-mutually-exclusive",
          message: "/symbols cannot be given together with /symbol",
        },
      ],
    },
    {
      given: "a limit above its maximum",
      operation: "order_book",
      params: { symbol: "BTCUSDT", limit: 5001 },
      want: [{ path: "/limit", rule: "maximum", message: "/limit must be at most 5000" }],
    },
    {
      given: "a limit below its minimum",
      operation: "recent_trades_list",
      params: { symbol: "BTCUSDT", limit: 0 },
      want: [{ path: "/limit", rule: "minimum", message: "/limit must be at least 1" }],
    },
    {
      given: "a limit that is not an integer",
      operation: "all_orders",
      params: { symbol: "BTCUSDT", limit: 2.5 },
      want: [{ path: "/limit", rule: "type", message: "/limit must be a 32-bit integer" }],
    },
    {
      given: "a symbol in lower case",
      operation: "order_book",
      params: { symbol: "btcusdt" },
      want: [
        { path: "/symbol", rule: "pattern", message: '/symbol must be a symbol name such as "BTCUSDT"' },
      ],
    },
    {
      given: "an unknown side",
      operation: "new_order",
      params: { ...limitOrder, side: "HOLD" },
      want: [{ path: "/side", rule: "enum", message: '/side must be one of "BUY" or "SELL"' }],
    },
    {
      given: "an unknown order type",
      operation: "new_order",
      params: { ...limitOrder, type: "OCO" },
      want: [
        {
          path: "/type",
          rule: "enum",
          message:
            '/type must be one of "LIMIT", "MARKET", "STOP_LOSS", "STOP_LOSS_LIMIT", "TAKE_PROFIT", "TAKE_PROFIT_LIMIT" or "LIMIT_MAKER"',
        },
      ],
    },
    {
      given: "a zero price",
      operation: "new_order",
      params: { ...limitOrder, price: 0 },
      want: [{ path: "/price", rule: "exclusiveMinimum", message: "/price must be greater than 0" }],
    },
    {
      given: "a price as text",
      operation: "new_order",
      params: { ...limitOrder, price: "0.1" },
      want: [{ path: "/price", rule: "type", message: "/price must be a float parameter such as 0.1" }],
    },
    {
      given: "a date-time that is not one",
      operation: "aggTrades",
      params: { symbol: "BTCUSDT", startTime: "2024-02-30T00:00:00Z" },
      want: [
        {
          path: "/startTime",
          rule: "format",
          message: '/startTime must be an RFC 3339 date-time such as "2024-01-01T00:00:00Z"',
        },
      ],
    },
    {
      given: "an empty symbols list",
      operation: "exchange_info",
      params: { symbols: [] },
      want: [{ path: "/symbols", rule: "minItems", message: "/symbols must not be empty" }],
    },
    {
      given: "a repeated symbol",
      operation: "exchange_info",
      params: { symbols: ["BTCUSDT", "BTCUSDT"] },
      want: [
        {
          path: "/symbols",
          rule: "uniqueItems",
          message: "/symbols must not contain duplicates (items 0 and 1 are equal)",
        },
      ],
    },
    {
      given: "parameters that are not an object",
      operation: "order_book",
      params: "symbol=BTCUSDT",
      want: [{ path: "", rule: "type", message: "the parameters must be an object" }],
    },
  ])("rejects $given", ({ operation, params, want }) => {
    expect(validateRequest(operation, params)).toEqual({ valid: false, errors: faults(want) });
  });
});

describe("validateRequest: new_order rules (x-order-type-rules, x-parameter-conditions)", () => {
  const rule = "x-order-type-rules";
  it.each([
    {
      given: "LIMIT without price",
      params: { ...limitOrder, price: undefined },
      want: [{ path: "/price", rule, message: "/price is required when type is LIMIT" }],
    },
    {
      given: "LIMIT without timeInForce and quantity",
      params: { ...limitOrder, timeInForce: undefined, quantity: undefined },
      want: [
        { path: "/timeInForce", rule, message: "/timeInForce is required when type is LIMIT" },
        { path: "/quantity", rule, message: "/quantity is required when type is LIMIT" },
      ],
    },
    {
      given: "LIMIT with a stop price",
      params: { ...limitOrder, stopPrice: 1 },
      want: [{ path: "/stopPrice", rule, message: "/stopPrice is not allowed when type is LIMIT" }],
    },
    {
      given: "MARKET with both quantity and quoteOrderQty",
      params: { symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: 1, quoteOrderQty: 10 },
      want: [
        {
          path: "/quoteOrderQty",
          rule,
          message: "/quoteOrderQty cannot be given together with /quantity when type is MARKET",
        },
      ],
    },
    {
      given: "MARKET with neither quantity nor quoteOrderQty",
      params: { symbol: "BTCUSDT", side: "BUY", type: "MARKET" },
      want: [
        { path: "/quantity", rule, message: "/quantity or /quoteOrderQty is required when type is MARKET" },
      ],
    },
    {
      given: "MARKET with timeInForce and a price",
      params: { symbol: "BTCUSDT", side: "SELL", type: "MARKET", quantity: 1, timeInForce: "GTC", price: 1 },
      want: [
        { path: "/timeInForce", rule, message: "/timeInForce is not allowed when type is MARKET" },
        { path: "/price", rule, message: "/price is not allowed when type is MARKET" },
      ],
    },
    {
      given: "STOP_LOSS without stopPrice or trailingDelta",
      params: { symbol: "BTCUSDT", side: "SELL", type: "STOP_LOSS", quantity: 1 },
      want: [
        {
          path: "/stopPrice",
          rule,
          message: "/stopPrice or /trailingDelta is required when type is STOP_LOSS",
        },
      ],
    },
    {
      given: "LIMIT_MAKER with timeInForce",
      params: { ...limitOrder, type: "LIMIT_MAKER" },
      want: [{ path: "/timeInForce", rule, message: "/timeInForce is not allowed when type is LIMIT_MAKER" }],
    },
    {
      given: "an iceberg order with timeInForce IOC",
      params: { ...limitOrder, timeInForce: "IOC", icebergQty: 0.5 },
      want: [
        {
          path: "/timeInForce",
          rule: "x-parameter-conditions",
          message: '/timeInForce must be "GTC" when icebergQty is given',
        },
      ],
    },
    {
      given: "an iceberg MARKET order (forbidden, and timeInForce missing)",
      params: { symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: 1, icebergQty: 0.5 },
      want: [
        { path: "/icebergQty", rule, message: "/icebergQty is not allowed when type is MARKET" },
        {
          path: "/timeInForce",
          rule: "x-parameter-conditions",
          message: "/timeInForce is required when icebergQty is given",
        },
      ],
    },
  ])("rejects $given", ({ params, want }) => {
    expect(validateRequest("new_order", params)).toEqual({ valid: false, errors: faults(want) });
  });

  it.each([
    { symbol: "BTCUSDT", side: "BUY", type: "MARKET", quoteOrderQty: 10 },
    { symbol: "BTCUSDT", side: "SELL", type: "STOP_LOSS", quantity: 1, trailingDelta: 100 },
    {
      symbol: "BTCUSDT",
      side: "SELL",
      type: "TAKE_PROFIT_LIMIT",
      timeInForce: "GTC",
      quantity: 1,
      price: 2,
      stopPrice: 2,
    },
    { ...limitOrder, icebergQty: 0.2, newOrderRespType: "ACK" },
    { ...limitOrder, type: "LIMIT_MAKER", timeInForce: undefined },
  ])("accepts %j", (params) => {
    expect(validateRequest("new_order", params)).toEqual({ valid: true });
  });
});

describe("parseRequest and { from: 'query' }: parameters as text", () => {
  it("decodes integers, decimals, JSON and text", () => {
    expect(parseRequest("order_book", "symbol=BTCUSDT&limit=5")).toEqual({
      valid: true,
      params: Object.assign(Object.create(null), { symbol: "BTCUSDT", limit: 5 }),
    });
    const symbols = parseRequest("exchange_info", `?symbols=${encodeURIComponent('["BTCUSDT","ETHUSDT"]')}`);
    expect(symbols.valid && symbols.params.symbols).toEqual(["BTCUSDT", "ETHUSDT"]);
    const order = parseRequest(
      "new_order",
      new URLSearchParams({ ...limitOrder, quantity: "0.0001", price: "25000.5" }),
    );
    expect(order.valid && [order.params.quantity, order.params.price]).toEqual([0.0001, 25000.5]);
  });

  it("takes URLSearchParams, pairs and objects of strings", () => {
    const want = { valid: true };
    expect(
      validateRequest("order_book", new URLSearchParams("symbol=BTCUSDT&limit=5"), { from: "query" }),
    ).toEqual(want);
    expect(validateRequest("order_book", [["symbol", "BTCUSDT"]], { from: "query" })).toEqual(want);
    expect(validateRequest("order_book", { symbol: "BTCUSDT", limit: "100" }, { from: "query" })).toEqual(
      want,
    );
  });

  it.each([
    {
      given: "a price in exponent notation",
      operation: "new_order",
      text: "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=1e-7",
      want: [
        {
          path: "/price",
          rule: "type",
          message: '/price must be a number in plain decimal notation such as "0.1" (never "1e-7")',
        },
      ],
    },
    {
      given: "a quantity with a leading sign or an upper-case exponent (x-wire-pattern)",
      operation: "new_order",
      text: "symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1E2",
      want: [
        {
          path: "/quantity",
          rule: "type",
          message: '/quantity must be a number in plain decimal notation such as "0.1" (never "1e-7")',
        },
      ],
    },
    {
      given: "a limit that is not a number",
      operation: "order_book",
      text: "symbol=BTCUSDT&limit=ten",
      want: [{ path: "/limit", rule: "type", message: '/limit must be an integer such as "100"' }],
    },
    {
      given: "a comma-separated symbols list",
      operation: "exchange_info",
      text: "symbols=BTCUSDT,ETHUSDT",
      want: [
        { path: "/symbols", rule: "json", message: '/symbols must be JSON such as ["BTCUSDT","ETHUSDT"]' },
      ],
    },
    {
      given: "a repeated parameter",
      operation: "order_book",
      text: "symbol=BTCUSDT&symbol=ETHUSDT",
      want: [{ path: "/symbol", rule: "duplicate", message: "/symbol is given 2 times; give it once" }],
    },
    {
      given: "a decoded value out of range",
      operation: "order_book",
      text: "symbol=BTCUSDT&limit=99999",
      want: [{ path: "/limit", rule: "maximum", message: "/limit must be at most 5000" }],
    },
    {
      given: "an unknown parameter",
      operation: "ping",
      text: "verbose=1",
      want: [
        { path: "/verbose", rule: "additionalProperties", message: "/verbose is not a parameter of ping" },
      ],
    },
  ])("reports $given", ({ operation, text, want }) => {
    expect(validateRequest(operation, text, { from: "query" })).toEqual({
      valid: false,
      errors: faults(want),
    });
    const parsed = parseRequest(operation, text);
    expect(parsed.valid).toBe(false);
    expect(!parsed.valid && parsed.errors).toEqual(faults(want));
  });

  it("does not also report a malformed required value as missing", () => {
    const result = validateRequest(
      "new_order",
      "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=abc",
      {
        from: "query",
      },
    );
    expect(errorsOf(result).map((e) => e.message)).toEqual([
      '/price must be a number in plain decimal notation such as "0.1" (never "1e-7")',
    ]);
  });

  it("keeps a __proto__ parameter as data, not as a prototype", () => {
    const parsed = parseRequest("exchange_info", `__proto__=${encodeURIComponent('{"polluted":true}')}`);
    expect(parsed.valid).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(!parsed.valid && parsed.errors.map((e) => e.path)).toEqual(["/__proto__"]);
  });

  it("gives params that inherit nothing: an unsent constructor or toString reads undefined", () => {
    const parsed = parseRequest("order_book", "symbol=BTCUSDT");
    expect(parsed.valid).toBe(true);
    const params = parsed.params as Record<string, unknown>;
    expect([params.constructor, params.toString, params.hasOwnProperty, "valueOf" in params]).toEqual([
      undefined,
      undefined,
      undefined,
      false,
    ]);
    expect(Object.keys(params)).toEqual(["symbol"]);
  });

  it("keeps a constructor parameter as data", () => {
    const parsed = parseRequest("order_book", "symbol=BTCUSDT&constructor=x");
    expect(!parsed.valid && parsed.errors.map((e) => e.path)).toEqual(["/constructor"]);
    expect(parsed.params.constructor).toBe("x");
  });
});

describe("unknown operations", () => {
  it.each(["nope", "__proto__", "constructor", "toString", "", 42, null])("%j is an error result", (id) => {
    const result = validateRequest(id as string, {});
    expect(result.valid).toBe(false);
    expect(errorsOf(result)[0]).toMatchObject({ path: "", rule: "operationId" });
    expect(errorsOf(result)[0]!.message).toContain("known operations: ping");
    expect(parseRequest(id as string, "").valid).toBe(false);
  });

  it("every operation of the spec is known", () => {
    expect(operationIds).toHaveLength(operationCount);
    for (const id of operationIds)
      expect(errorsOf(validateRequest(id, {})).every((e) => e.rule !== "operationId")).toBe(true);
  });
});

describe("structured facts of a fault (what programs act on, never the message)", () => {
  const { type: _type, ...anyOrder } = limitOrder;
  const market = { ...anyOrder, type: "MARKET" };
  const { quantity: _quantity, ...withoutQuantity } = market;
  it.each([
    {
      given: "a missing parameter",
      operation: "order_book",
      params: {},
      want: { rule: "required", keyword: "required", params: { missing: ["symbol"] } },
    },
    {
      given: "a pair of which one is required (x-order-type-rules)",
      operation: "new_order",
      params: withoutQuantity,
      want: {
        rule: "x-order-type-rules",
        keyword: "required",
        params: { missing: ["quantity", "quoteOrderQty"] },
      },
    },
    {
      given: "a pair given together (x-order-type-rules exactlyOneOf)",
      operation: "new_order",
      params: { ...market, quoteOrderQty: 1, timeInForce: undefined, price: undefined },
      want: { rule: "x-order-type-rules", keyword: "not", params: { pair: ["quantity", "quoteOrderQty"] } },
    },
    {
      given: "a parameter the order type forbids",
      operation: "new_order",
      params: { ...market, price: undefined },
      want: { rule: "x-order-type-rules", keyword: "false schema", params: { forbidden: "timeInForce" } },
    },
    {
      given: "symbol with symbols (x-mutually-exclusive)",
      operation: "exchange_info",
      params: { symbol: "BTCUSDT", symbols: ["ETHUSDT"] },
      want: { rule: "x-mutually-exclusive", keyword: "not", params: { pair: ["symbol", "symbols"] } },
    },
    {
      given: "an iceberg order that is not GTC (x-parameter-conditions)",
      operation: "new_order",
      params: { ...limitOrder, timeInForce: "IOC", icebergQty: 0.5 },
      want: { rule: "x-parameter-conditions", keyword: "const", params: { allowedValues: ["GTC"] } },
    },
    {
      given: "an unknown parameter",
      operation: "ping",
      params: { extra: 1 },
      want: { rule: "additionalProperties", keyword: "additionalProperties", params: { forbidden: "extra" } },
    },
    {
      given: "a value out of range",
      operation: "order_book",
      params: { symbol: "BTCUSDT", limit: 0 },
      want: { rule: "minimum", keyword: "minimum", params: { limit: 1 } },
    },
  ])("$given", ({ operation, params, want }) => {
    const defined = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
    expect(errorsOf(validateRequest(operation, defined))).toContainEqual(expect.objectContaining(want));
  });

  it("counts a repeated parameter", () => {
    const parsed = parseRequest("order_book", "symbol=BTCUSDT&symbol=ETHUSDT");
    expect(!parsed.valid && parsed.errors).toContainEqual(
      expect.objectContaining({ rule: "duplicate", keyword: "duplicate", params: { count: 2 } }),
    );
  });
});

describe("header parameters (in: header) by their declared name", () => {
  const unit = "X-MBX-TIME-UNIT";
  it.each([
    { given: { operation: "server_time", value: "MICROSECOND" }, want: [] },
    { given: { operation: "all_orders", value: "microsecond" }, want: [] },
    { given: { operation: "new_order", value: "MILLISECOND" }, want: [] },
    { given: { operation: "server_time", value: "SECOND" }, want: ["enum"] },
    { given: { operation: "order_book", value: "Microsecond" }, want: ["enum"] },
  ])("$given.operation with $given.value: $want", ({ given, want }) => {
    const required: Record<string, string> = {
      all_orders: "symbol=BTCUSDT",
      new_order: "symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1",
      order_book: "symbol=BTCUSDT",
    };
    const text = new URLSearchParams(required[given.operation] ?? "");
    text.set(unit, given.value);
    const parsed = parseRequest(given.operation, text);
    expect(parsed.valid ? [] : parsed.errors.map((e) => `${e.path} ${e.rule}`)).toEqual(
      want.map((rule) => `/${unit} ${rule}`),
    );
  });

  it("every operation declares the time-unit header", () => {
    for (const id of operationIds) {
      const parsed = parseRequest(id, { [unit]: "NOPE" });
      const rules = parsed.valid ? [] : parsed.errors.filter((e) => e.path === `/${unit}`).map((e) => e.rule);
      expect(rules, id).toEqual(["enum"]);
    }
  });
});
