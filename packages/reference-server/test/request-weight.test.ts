// The weight the rate limiter charges a request: the spec's `x-weight` and its parameter rule, as
// the pacer of the client reads it, or what a weighed live-API extra costs.
import { describe, expect, it } from "vitest";
import { describeApi } from "../src/http/api.js";
import { requestWeight } from "../src/http/rate-limits.js";

const operations = new Map(describeApi().operations.map((op) => [op.operationId, op]));

function weightOf(operationId: string, query: Record<string, string>): number {
  const operation = operations.get(operationId);
  if (!operation) throw new Error(`no operation ${operationId}`);
  return requestWeight(operation, {
    values: new Map(Object.entries(query)),
    signedPayload: "",
    sentCount: 0,
  });
}

const symbols = (count: number) => JSON.stringify(Array.from({ length: count }, (_, i) => `S${i}USDT`));

describe("the weight of a request", () => {
  it.each<{ given: string; operation: string; query: Record<string, string>; want: number }>([
    { given: "depth without limit", operation: "order_book", query: {}, want: 5 },
    { given: "depth at limit 100", operation: "order_book", query: { limit: "100" }, want: 5 },
    { given: "depth at limit 101", operation: "order_book", query: { limit: "101" }, want: 25 },
    { given: "depth at limit 500", operation: "order_book", query: { limit: "500" }, want: 25 },
    { given: "depth at limit 1000", operation: "order_book", query: { limit: "1000" }, want: 50 },
    { given: "depth at limit 5000", operation: "order_book", query: { limit: "5000" }, want: 250 },
    {
      given: "24-hour ticker with symbol",
      operation: "ticker_price_change_statistics24hr",
      query: { symbol: "BTCUSDT" },
      want: 2,
    },
    {
      given: "24-hour ticker without symbol",
      operation: "ticker_price_change_statistics24hr",
      query: {},
      want: 80,
    },
    {
      given: "24-hour ticker, 20 symbols",
      operation: "ticker_price_change_statistics24hr",
      query: { symbols: symbols(20) },
      want: 2,
    },
    {
      given: "24-hour ticker, 21 symbols",
      operation: "ticker_price_change_statistics24hr",
      query: { symbols: symbols(21) },
      want: 40,
    },
    {
      given: "24-hour ticker, 101 symbols",
      operation: "ticker_price_change_statistics24hr",
      query: { symbols: symbols(101) },
      want: 80,
    },
    {
      given: "price ticker with symbols",
      operation: "symbol_price_ticker",
      query: { symbols: symbols(3) },
      want: 4,
    },
    {
      given: "book ticker with symbols",
      operation: "order_book_ticker",
      query: { symbols: symbols(3) },
      want: 4,
    },
    { given: "open orders with symbol", operation: "open_orders", query: { symbol: "BTCUSDT" }, want: 6 },
    { given: "open orders without symbol", operation: "open_orders", query: {}, want: 80 },
    { given: "own trades", operation: "account_trade_list", query: { symbol: "BTCUSDT" }, want: 20 },
    {
      given: "own trades of one order",
      operation: "account_trade_list",
      query: { symbol: "BTCUSDT", orderId: "7" },
      want: 5,
    },
    { given: "a new order", operation: "new_order", query: { symbol: "BTCUSDT" }, want: 1 },
  ])("$given: $want", ({ operation, query, want }) => {
    expect(weightOf(operation, query)).toBe(want);
  });

  it("is the weight the spec's rule states for every operation without extras", () => {
    for (const [id, operation] of operations) {
      expect(weightOf(id, {}), id).toBe(operation.weightRule.absent ?? operation.weightRule.weight);
    }
  });
});
