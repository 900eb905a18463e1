import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel as buildModel } from "@marketapi/spec/model";
import { validateRequest } from "@marketapi/validators";
import { describe, expect, it } from "vitest";
import { buildContractModel } from "../src/core/operations.js";
import { encodeParams } from "../src/http/request.js";
import {
  boundaryCases,
  exampleCases,
  generatedCases,
  negativeCases,
  requiredValues,
  valueOffPattern,
} from "../src/kit/values.js";

const model = buildContractModel(loadOpenApi());
/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildModel(loadOpenApi()).operations.length;
const ctx = {
  symbols: ["BTCUSDT", "ETHUSDT", "ETHBTC"],
  symbol: "BTCUSDT",
  horizon: Date.parse("2026-11-23T00:00:00Z"),
};
const labels = (cases: Array<{ label: string }>) => cases.map((c) => c.label);

describe("request values from the spec", () => {
  it("reads every operation of the spec model with their auth classes and extensions", () => {
    expect(model.operations).toHaveLength(operationCount);
    const newOrder = model.operation("new_order")!;
    expect(newOrder.authClass).toBe("trade");
    expect(newOrder.acceptsFormBody).toBe(true);
    expect(newOrder.responseVariants).toMatchObject({ parameter: "newOrderRespType", default: "FULL" });
    expect(model.operation("symbol_price_ticker")!.responseVariants).toMatchObject({
      parameter: "symbol",
      by: "presence",
      refs: {
        present: "#/components/schemas/PriceTicker",
        absent: "#/components/schemas/PriceTickerList",
      },
    });
    expect(Object.keys(newOrder.orderTypeRules ?? {})).toContain("LIMIT_MAKER");
    expect(model.operation("exchange_info")!.exclusivePairs).toEqual([["symbol", "symbols"]]);
    expect(model.operation("order_book")!.responses.find((r) => r.status === "200")!.headers[0]!.name).toBe(
      "X-MBX-USED-WEIGHT-1M",
    );
  });

  it("uses examples first, each optional example on its own", () => {
    const info = model.operation("exchange_info")!;
    expect(labels(exampleCases(info, ctx))).toEqual([
      "example: required parameters only",
      "example: symbol=BTCUSDT",
      'example: symbols=["BTCUSDT","ETHUSDT"]',
      // A header parameter is a parameter like the others (sent as a header).
      "example: X-MBX-TIME-UNIT=MICROSECOND",
    ]);
  });

  it("uses boundary values of limits and list sizes", () => {
    expect(labels(boundaryCases(model.operation("order_book")!, ctx))).toEqual([
      "boundary: symbol=A",
      "boundary: symbol=AAAAAAAAAAAAAAAAAAAA",
      "boundary: limit=1",
      "boundary: limit=5000",
      // Each value of an enum, the time-unit header's too.
      "boundary: X-MBX-TIME-UNIT=MILLISECOND",
      "boundary: X-MBX-TIME-UNIT=MICROSECOND",
      "boundary: X-MBX-TIME-UNIT=millisecond",
      "boundary: X-MBX-TIME-UNIT=microsecond",
    ]);
    expect(labels(boundaryCases(model.operation("query_order")!, ctx))).toEqual(
      expect.arrayContaining([
        "boundary: origClientOrderId=A",
        `boundary: origClientOrderId=${"A".repeat(36)}`,
      ]),
    );
    expect(labels(boundaryCases(model.operation("exchange_info")!, ctx))).toEqual([
      "boundary: symbol=A",
      "boundary: symbol=AAAAAAAAAAAAAAAAAAAA",
      'boundary: symbols=["BTCUSDT"]',
      'boundary: symbols=["BTCUSDT","ETHUSDT","ETHBTC"]',
      "boundary: X-MBX-TIME-UNIT=MILLISECOND",
      "boundary: X-MBX-TIME-UNIT=MICROSECOND",
      "boundary: X-MBX-TIME-UNIT=millisecond",
      "boundary: X-MBX-TIME-UNIT=microsecond",
    ]);
  });

  it("every example and boundary request is valid for the validators", () => {
    for (const op of model.operations) {
      for (const c of [...exampleCases(op, ctx), ...boundaryCases(op, ctx)]) {
        if (op.operationId === "new_order") continue; // new_order needs a full order; it is built by the lifecycle
        const result = validateRequest(op.operationId, encodeParams(op, c.values), { from: "query" });
        expect(result, `${op.operationId} ${c.label}`).toEqual({ valid: true });
      }
    }
  });

  it("generates valid values reproducibly from the seed", () => {
    for (const op of model.operations.filter((o) => o.method === "get")) {
      const first = generatedCases(op, ctx, 42, 25);
      expect(generatedCases(op, ctx, 42, 25)).toEqual(first);
      for (const c of first) {
        const result = validateRequest(op.operationId, encodeParams(op, c.values), { from: "query" });
        expect(result, `${op.operationId} ${c.label}`).toEqual({ valid: true });
      }
    }
    expect(generatedCases(model.operation("order_book")!, ctx, 1, 10)).not.toEqual(
      generatedCases(model.operation("order_book")!, ctx, 2, 10),
    );
  });

  it("builds negative cases the validators confirm as invalid", () => {
    const depth = model.operation("order_book")!;
    const cases = negativeCases(depth, encodeParams(depth, requiredValues(depth, ctx)));
    expect(labels(cases)).toEqual(
      expect.arrayContaining([
        "negative: symbol missing",
        'negative: limit="0" (below minimum)',
        'negative: limit="5001" (above maximum)',
        'negative: limit="abc" (wrong type)',
        'negative: symbol="lowercase" (not matching the pattern)',
        `negative: symbol="${"A".repeat(21)}" (too long)`,
      ]),
    );
    const info = model.operation("exchange_info")!;
    expect(labels(negativeCases(info, []))).toEqual(
      expect.arrayContaining([
        "negative: symbol and symbols together",
        'negative: symbols="[]" (empty list)',
      ]),
    );
    const newOrder = model.operation("new_order")!;
    const base = encodeParams(newOrder, {
      symbol: "BTCUSDT",
      side: "BUY",
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: "0.001",
      price: "12000",
      newClientOrderId: "x1",
    });
    const orderCases = labels(negativeCases(newOrder, base));
    expect(orderCases).toEqual(
      expect.arrayContaining([
        "negative: side missing",
        'negative: side="NOT_A_VALUE" (unknown enum value)',
        'negative: price="0" (not above exclusiveMinimum)',
        "negative: LIMIT without timeInForce (x-order-type-rules)",
        "negative: LIMIT with stopPrice (x-order-type-rules forbids it)",
        "negative: icebergQty with timeInForce=IOC (x-parameter-conditions: timeInForce must be GTC)",
        "negative: quantity=1e-3 (0.001 in exponent notation; x-wire-pattern)",
        "negative: price=1.2e+4 (12000 in exponent notation; x-wire-pattern)",
      ]),
    );
    // The condition broken alone: a valid iceberg (half the order shown), at another time in force.
    const condition = negativeCases(newOrder, base).find((c) => c.rules?.includes("parameter-condition"));
    expect(Object.fromEntries(condition?.params ?? [])).toMatchObject({
      quantity: "0.002",
      icebergQty: "0.001",
      timeInForce: "IOC",
    });
    expect(
      validateRequest(
        "new_order",
        (condition?.params ?? []).map(([n, v]): [string, string] => [n, n === "timeInForce" ? "GTC" : v]),
        { from: "query" },
      ).valid,
    ).toBe(true);
    for (const op of model.operations) {
      for (const c of negativeCases(op, encodeParams(op, requiredValues(op, ctx)))) {
        if (c.fromDescription) continue;
        expect(
          validateRequest(op.operationId, c.params, { from: "query" }).valid,
          `${op.operationId} ${c.label}`,
        ).toBe(false);
      }
    }
  });
});

describe("valueOffPattern", () => {
  const table: { given: string; want: string | undefined }[] = [
    { given: "^[A-Z0-9\\-_.]{1,20}$", want: "lowercase" },
    { given: "^[.A-Z:/a-z0-9_-]{1,36}$", want: "~~" },
    { given: "^[~a-z ]+$", want: "UPPERCASE" },
    { given: "^[^!]*$", want: "bad value!" },
    { given: ".*", want: undefined },
    { given: "^(unclosed", want: undefined },
  ];
  it.each(table)("$given → $want", ({ given, want }) => {
    const value = valueOffPattern(given);
    expect(value).toBe(want);
    if (value !== undefined) expect(new RegExp(given).test(value)).toBe(false);
  });
});
