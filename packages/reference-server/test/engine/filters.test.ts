import { describe, expect, test } from "vitest";
import { DEFAULT_SYMBOLS, type NewOrderParams, type SymbolConfig } from "../../src/engine/index.js";
import { bareExchange, expectRejected, limit, market } from "./support.js";

function funded() {
  const { ex, clock } = bareExchange();
  ex.addAccount("alice", { USDT: "100000000", BTC: "10000" });
  return { ex, clock };
}

const stop = (extra: Partial<NewOrderParams>): NewOrderParams => ({
  symbol: "BTCUSDT",
  side: "SELL",
  type: "STOP_LOSS_LIMIT",
  timeInForce: "GTC",
  quantity: "0.01",
  price: "50000",
  stopPrice: "50000",
  ...extra,
});

describe("BTCUSDT filters (-1013 Filter failure: <FILTER>)", () => {
  const cases: [name: string, params: NewOrderParams, filter: string][] = [
    ["price off tick", limit("BUY", "60000.001", "0.001"), "PRICE_FILTER"],
    ["price zero", limit("BUY", "0", "0.001"), "PRICE_FILTER"],
    ["price above maxPrice", limit("SELL", "1000000.01", "0.001"), "PRICE_FILTER"],
    ["stopPrice off tick", stop({ stopPrice: "50000.005" }), "PRICE_FILTER"],
    ["quantity below minQty", limit("BUY", "60000", "0.000001"), "LOT_SIZE"],
    ["quantity off step", limit("BUY", "60000", "0.000015"), "LOT_SIZE"],
    ["quantity above maxQty", limit("SELL", "60000", "9000.00001"), "LOT_SIZE"],
    ["quantity zero", limit("BUY", "60000", "0"), "LOT_SIZE"],
    [
      "market quantity above MARKET_LOT_SIZE maxQty",
      market("SELL", { quantity: "100.00001" }),
      "MARKET_LOT_SIZE",
    ],
    ["notional below minNotional", limit("BUY", "100", "0.04"), "NOTIONAL"],
    ["notional above maxNotional", limit("SELL", "999999", "9000"), "NOTIONAL"],
    ["quoteOrderQty below minNotional", market("BUY", { quoteOrderQty: "4.99" }), "NOTIONAL"],
    ["iceberg with too many parts", limit("BUY", "60000", "1", { icebergQty: "0.05" }), "ICEBERG_PARTS"],
    ["icebergQty off step", limit("BUY", "60000", "1", { icebergQty: "0.200001" }), "LOT_SIZE"],
    ["trailingDelta below minimum", stop({ stopPrice: undefined, trailingDelta: 5 }), "TRAILING_DELTA"],
    ["trailingDelta above maximum", stop({ trailingDelta: 2001 }), "TRAILING_DELTA"],
  ];
  test.each(cases)("%s", (_name, params, filter) => {
    const { ex } = funded();
    expectRejected(() => ex.newOrder("alice", params), -1013, `Filter failure: ${filter}`);
  });

  const accepted: [name: string, params: NewOrderParams][] = [
    ["smallest valid limit", limit("BUY", "0.01", "500")],
    ["tick and step aligned", limit("BUY", "60000.01", "0.00009")],
    ["iceberg with exactly 10 parts", limit("BUY", "60000", "1", { icebergQty: "0.1" })],
    ["trailing at the minimum delta", stop({ trailingDelta: 10 })],
    ["notional exactly minNotional", limit("BUY", "50000", "0.0001")],
  ];
  test.each(accepted)("accepts %s", (_name, params) => {
    const { ex } = funded();
    expect(ex.newOrder("alice", params).status).toBe("NEW");
  });
});

describe("request shape and engine rejections", () => {
  const cases: [name: string, params: NewOrderParams, code: number, msg: string][] = [
    [
      "LIMIT without price",
      { ...limit("BUY", "1", "1"), price: undefined },
      -1102,
      "Mandatory parameter 'price' was not sent, was empty/null, or malformed.",
    ],
    [
      "LIMIT with empty timeInForce",
      { ...limit("BUY", "1", "1"), timeInForce: "" as "GTC" },
      -1102,
      "Mandatory parameter 'timeInForce' was not sent, was empty/null, or malformed.",
    ],
    [
      "MARKET with price",
      market("BUY", { quantity: "1", price: "1" }),
      -1106,
      "Parameter 'price' sent when not required.",
    ],
    [
      "MARKET with timeInForce",
      market("BUY", { quantity: "1", timeInForce: "GTC" }),
      -1114,
      "TimeInForce parameter sent when not required.",
    ],
    [
      "MARKET with both quantities",
      market("BUY", { quantity: "1", quoteOrderQty: "10" }),
      -1128,
      "Combination of optional parameters invalid.",
    ],
    [
      "MARKET with neither quantity",
      market("BUY", {}),
      -1102,
      "Param 'quantity' or 'quoteOrderQty' must be sent, but both were empty/null!",
    ],
    [
      "LIMIT_MAKER with timeInForce",
      limit("BUY", "1", "1", { type: "LIMIT_MAKER" }),
      -1114,
      "TimeInForce parameter sent when not required.",
    ],
    [
      "LIMIT with stopPrice",
      limit("BUY", "60000", "1", { stopPrice: "1" }),
      -1106,
      "Parameter 'stopPrice' sent when not required.",
    ],
    [
      "LIMIT with quoteOrderQty",
      limit("BUY", "60000", "1", { quoteOrderQty: "1" }),
      -1106,
      "Parameter 'quoteOrderQty' sent when not required.",
    ],
    [
      "STOP_LOSS without trigger",
      { symbol: "BTCUSDT", side: "SELL", type: "STOP_LOSS", quantity: "1" },
      -1102,
      "Param 'stopPrice' or 'trailingDelta' must be sent, but both were empty/null!",
    ],
    [
      "MARKET with icebergQty",
      market("BUY", { quantity: "1", icebergQty: "0.1" }),
      -1106,
      "Parameter 'icebergQty' sent when not required.",
    ],
    ["bad side", limit("HOLD" as "BUY", "1", "1"), -1117, "Invalid side."],
    ["bad type", limit("BUY", "1", "1", { type: "OCO" as "LIMIT" }), -1116, "Invalid orderType."],
    [
      "bad timeInForce",
      limit("BUY", "1", "1", { timeInForce: "GTD" as "GTC" }),
      -1115,
      "Invalid timeInForce.",
    ],
    [
      "exponent in quantity",
      limit("BUY", "60000", "1e-3"),
      -1100,
      "Illegal characters found in parameter 'quantity'; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'.",
    ],
    [
      "bad client order id",
      limit("BUY", "60000", "0.001", { newClientOrderId: "no spaces" }),
      -1100,
      "Illegal characters found in parameter 'newClientOrderId'; legal range is '^[.A-Z:/a-z0-9_-]{1,36}$'.",
    ],
    [
      "too many decimals",
      limit("BUY", "60000", "0.000000001"),
      -1111,
      "Parameter 'quantity' has too much precision.",
    ],
    [
      "strategyType too small",
      limit("BUY", "60000", "0.001", { strategyType: 5 }),
      -1134,
      "strategyType was less than 1000000.",
    ],
    ["unknown symbol", limit("BUY", "1", "1", { symbol: "DOGEUSDT" }), -1121, "Invalid symbol."],
    [
      "iceberg needs GTC",
      limit("BUY", "60000", "1", { timeInForce: "IOC", icebergQty: "0.5" }),
      -2010,
      "Unsupported order combination",
    ],
    [
      "icebergQty not below quantity",
      limit("BUY", "60000", "1", { icebergQty: "1" }),
      -2010,
      "IcebergQty exceeds QTY.",
    ],
    [
      "unsupported STP mode",
      limit("BUY", "60000", "0.001", { selfTradePreventionMode: "EXPIRE_MAKER" }),
      -2010,
      "Unsupported order combination",
    ],
  ];
  test.each(cases)("%s", (_name, params, code, msg) => {
    const { ex } = funded();
    expectRejected(() => ex.newOrder("alice", params), code, msg);
  });

  test("unknown account is -2015 with HTTP 401", () => {
    const { ex } = funded();
    expectRejected(() => ex.newOrder("mallory", limit("BUY", "60000", "0.001")), -2015);
  });
});

function withFilters(patch: (config: SymbolConfig) => void): SymbolConfig[] {
  return DEFAULT_SYMBOLS.map((config) => {
    const copy = structuredClone(config);
    if (copy.symbol === "BTCUSDT") patch(copy);
    return copy;
  });
}

describe("order-count limits", () => {
  test("MAX_NUM_ORDERS counts open orders on the symbol", () => {
    const symbols = withFilters((c) => {
      c.filters = c.filters.map((f) => (f.filterType === "MAX_NUM_ORDERS" ? { ...f, maxNumOrders: 2 } : f));
    });
    const { ex } = bareExchange({ symbols });
    ex.addAccount("alice", { USDT: "1000000" });
    ex.newOrder("alice", limit("BUY", "50000", "0.001"));
    const second = ex.newOrder("alice", limit("BUY", "50000", "0.001"));
    expectRejected(
      () => ex.newOrder("alice", limit("BUY", "50000", "0.001")),
      -1013,
      "Filter failure: MAX_NUM_ORDERS",
    );
    ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: second.orderId });
    expect(ex.newOrder("alice", limit("BUY", "50000", "0.001")).status).toBe("NEW");
  });

  test("MAX_NUM_ALGO_ORDERS caps pending stops at 5", () => {
    const { ex } = bareExchange();
    ex.addAccount("alice", { BTC: "1" });
    for (let i = 0; i < 5; i += 1) ex.newOrder("alice", stop({ stopPrice: `${50000 + i}` }));
    expectRejected(() => ex.newOrder("alice", stop({})), -1013, "Filter failure: MAX_NUM_ALGO_ORDERS");
  });

  test("the account-wide cap applies across symbols", () => {
    const { ex } = bareExchange({ maxOpenOrdersPerAccount: 2 });
    ex.addAccount("alice", { USDT: "1000000" });
    ex.newOrder("alice", limit("BUY", "50000", "0.001"));
    ex.newOrder("alice", limit("BUY", "2000", "0.01", { symbol: "ETHUSDT" }));
    expectRejected(
      () => ex.newOrder("alice", limit("BUY", "50000", "0.001")),
      -1013,
      "Filter failure: EXCHANGE_MAX_NUM_ORDERS",
    );
    expect(ex.exchangeFilters()).toEqual([{ filterType: "EXCHANGE_MAX_NUM_ORDERS", maxNumOrders: 2 }]);
  });

  test("symbol switches: disabled types and features are -2010", () => {
    const symbols = withFilters((c) => {
      c.orderTypes = ["LIMIT"];
      c.icebergAllowed = false;
      c.status = "TRADING";
    });
    const { ex } = bareExchange({ symbols });
    ex.addAccount("alice", { USDT: "1000000", BTC: "1" });
    expectRejected(
      () => ex.newOrder("alice", market("BUY", { quantity: "0.001" })),
      -2010,
      "Market orders are not supported for this symbol.",
    );
    expectRejected(
      () => ex.newOrder("alice", stop({})),
      -2010,
      "Stop loss limit orders are not supported for this symbol.",
    );
    expectRejected(
      () => ex.newOrder("alice", limit("BUY", "60000", "1", { icebergQty: "0.5" })),
      -2010,
      "Iceberg orders are not supported for this symbol.",
    );
  });

  test("a symbol that is not TRADING rejects new orders", () => {
    const symbols = withFilters((c) => {
      c.status = "HALT";
    });
    const { ex } = bareExchange({ symbols });
    ex.addAccount("alice", { USDT: "1000000" });
    expectRejected(() => ex.newOrder("alice", limit("BUY", "60000", "0.001")), -2010, "Market is closed.");
  });

  test("a config whose tick × step needs more than the quote precision is refused", () => {
    const symbols = withFilters((c) => {
      c.filters = c.filters.map((f) => (f.filterType === "LOT_SIZE" ? { ...f, stepSize: "0.0000001" } : f));
    });
    expect(() => bareExchange({ symbols })).toThrow(/tickSize × stepSize/);
  });
});
