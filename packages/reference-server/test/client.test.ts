// Every operation of the spec through @marketapi/client against a started server; every answer is
// checked against the spec with @marketapi/validators (the client's validateResponse hook, plus the
// exact new_order variant).
import { createSpotClient, type OperationId, operationTable } from "@marketapi/client";
import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { validateResponse } from "@marketapi/validators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildSpecModel(loadOpenApi()).operations.length;

let server: RunningServer;
const called = new Set<string>();

function client(paramsIn: "query" | "body" = "query") {
  return createSpotClient({
    baseUrl: server.url,
    apiKey: server.demo.apiKey,
    apiSecret: server.demo.apiSecret,
    paramsIn,
    throwOnError: true,
    validateResponse: (operationId, status, body, options) => {
      called.add(operationId);
      // With the request, the answer is checked against the variant it asked for.
      return validateResponse(operationId, status, body, options);
    },
  });
}

beforeAll(async () => {
  server = await startServer({ seed: 42 });
});
afterAll(() => server.close());

describe("market data", () => {
  it("ping, time and exchangeInfo (all, one symbol, a symbols list)", async () => {
    const api = client();
    expect((await api.ping()).data).toEqual({});
    const before = Date.now();
    const { data: time } = await api.server_time();
    expect(time.serverTime).toBeGreaterThanOrEqual(before);
    expect(time.serverTime).toBeLessThanOrEqual(Date.now());
    const { data: all } = await api.exchange_info();
    expect(all.symbols.map((s) => s.symbol)).toEqual(["BTCUSDT", "ETHUSDT", "ETHBTC"]);
    const { data: one } = await api.exchange_info({ symbol: "ETHBTC" });
    expect(one.symbols.map((s) => s.symbol)).toEqual(["ETHBTC"]);
    const { data: some } = await api.exchange_info({ symbols: ["ETHUSDT", "BTCUSDT"] });
    expect(some.symbols.map((s) => s.symbol)).toEqual(["ETHUSDT", "BTCUSDT"]);
  });

  it("depth, trades, historical trades, aggregate trades and the average price", async () => {
    const api = client();
    const { data: depth } = await api.order_book({ symbol: "BTCUSDT", limit: 10 });
    expect(depth.bids).toHaveLength(10);
    expect(depth.asks).toHaveLength(10);
    expect(Number(depth.bids[0]?.[0])).toBeLessThan(Number(depth.asks[0]?.[0]));
    const { data: trades } = await api.recent_trades_list({ symbol: "BTCUSDT", limit: 3 });
    expect(trades.length).toBeGreaterThan(0);
    const first = trades[0]?.id ?? 0;
    const { data: old } = await api.historical_trades({ symbol: "BTCUSDT", fromId: first, limit: 2 });
    expect(old[0]?.id).toBe(first);
    const { data: aggs } = await api.aggTrades({ symbol: "BTCUSDT", limit: 5 });
    expect(aggs.length).toBeGreaterThan(0);
    const since = new Date((aggs[0]?.T ?? 0) - 1).toISOString();
    const { data: window } = await api.aggTrades({ symbol: "BTCUSDT", startTime: since, limit: 1 });
    expect(window[0]?.a).toBe(aggs[0]?.a);
    const { data: avg } = await api.current_average_price({ symbol: "BTCUSDT" });
    expect(avg.mins).toBe(5);
  });

  it("the three tickers, for one symbol and for all", async () => {
    const api = client();
    const { data: book } = await api.order_book_ticker({ symbol: "ETHUSDT" });
    expect(book).toMatchObject({ symbol: "ETHUSDT" });
    expect(await api.order_book_ticker()).toMatchObject({ data: expect.any(Array) });
    const { data: price } = await api.symbol_price_ticker({ symbol: "BTCUSDT" });
    expect(price).toMatchObject({ symbol: "BTCUSDT", price: expect.stringMatching(/^[0-9]+\.[0-9]{8}$/) });
    expect(((await api.symbol_price_ticker()).data as unknown[]).length).toBe(3);
    const { data: stats } = await api.ticker_price_change_statistics24hr({ symbol: "BTCUSDT" });
    expect(stats).toMatchObject({ symbol: "BTCUSDT", count: expect.any(Number) });
    expect(((await api.ticker_price_change_statistics24hr()).data as unknown[]).length).toBe(3);
  });
});

describe("orders", () => {
  it("places (ACK, RESULT, FULL), queries, lists and cancels", async () => {
    const api = client();
    const limit = {
      symbol: "BTCUSDT",
      side: "BUY",
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: 0.001,
    } as const;
    const ack = await api.new_order({
      ...limit,
      price: 50000,
      newOrderRespType: "ACK",
      newClientOrderId: "c-ack",
    });
    expect(validateResponse("new_order", 200, ack.data, { variant: "ACK" })).toEqual({ valid: true });
    const result = await api.new_order({ ...limit, price: 50001, newOrderRespType: "RESULT" });
    expect(validateResponse("new_order", 200, result.data, { variant: "RESULT" })).toEqual({ valid: true });
    const full = await api.new_order({ ...limit, price: 50002 });
    expect(validateResponse("new_order", 200, full.data, { variant: "FULL" })).toEqual({ valid: true });
    expect(full.data).toMatchObject({ status: "NEW", fills: [] });
    expect(full.response.headers.get("x-mbx-order-count-10s")).toBe("3");
    // The order as placed, or as its lookup found it had its answer been lost (x-outcome-lookup).
    const ackId = (ack.data ?? ack.lookedUp)!.orderId;

    const { data: byId } = await api.query_order({ symbol: "BTCUSDT", orderId: ackId });
    expect(byId).toMatchObject({ clientOrderId: "c-ack", status: "NEW", price: "50000.00000000" });
    const { data: byClientId } = await api.query_order({ symbol: "BTCUSDT", origClientOrderId: "c-ack" });
    expect(byClientId.orderId).toBe(ackId);
    expect((await api.open_orders({ symbol: "BTCUSDT" })).data).toHaveLength(3);
    expect((await api.open_orders()).data).toHaveLength(3);

    const { data: cancelled } = await api.cancel_order({ symbol: "BTCUSDT", orderId: ackId });
    expect(cancelled).toMatchObject({ status: "CANCELED", origClientOrderId: "c-ack" });
    const { data: rest } = await api.cancel_all_orders({ symbol: "BTCUSDT" });
    expect(rest).toHaveLength(2);
    const { data: history } = await api.all_orders({ symbol: "BTCUSDT", limit: 10 });
    expect(history.map((o) => o.status)).toEqual(["CANCELED", "CANCELED", "CANCELED"]);
  });

  it("fills a MARKET order against the book and reports fills with commission", async () => {
    const api = client();
    const { data } = await api.new_order({
      symbol: "ETHUSDT",
      side: "BUY",
      type: "MARKET",
      quoteOrderQty: 100,
    });
    expect(validateResponse("new_order", 200, data, { variant: "FULL" })).toEqual({ valid: true });
    expect(data).toMatchObject({ status: "FILLED", type: "MARKET" });
    const fills = (data as { fills: { commissionAsset: string }[] }).fills;
    expect(fills.length).toBeGreaterThan(0);
    expect(fills[0]?.commissionAsset).toBe("ETH");
  });

  it("sends the same operations with the parameters in a form body", async () => {
    const api = client("body");
    const { data } = await api.new_order({
      symbol: "ETHBTC",
      side: "SELL",
      type: "STOP_LOSS_LIMIT",
      timeInForce: "GTC",
      quantity: 1,
      price: 0.04,
      stopPrice: 0.041,
      newOrderRespType: "RESULT",
    });
    expect(data).toMatchObject({ status: "NEW", type: "STOP_LOSS_LIMIT" });
    // `data` is absent only when the answer was lost and the lookup found the order (x-outcome-lookup).
    const { data: cancelled } = await api.cancel_order({ symbol: "ETHBTC", orderId: data!.orderId });
    expect(cancelled.status).toBe("CANCELED");
    expect((await api.cancel_all_orders({ symbol: "ETHBTC" }).catch((e: Error) => e)) instanceof Error).toBe(
      true,
    );
  });

  it("returns the API's errors as SpotApiError with {code,msg} that match the spec", async () => {
    const api = client();
    const error = await api.query_order({ symbol: "BTCUSDT", orderId: 999_999 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: -2013, msg: "Order does not exist." });
  });
});

describe("coverage", () => {
  it("called every operation of the spec", () => {
    const all = Object.keys(operationTable) as OperationId[];
    expect(all).toHaveLength(operationCount);
    expect([...called].sort()).toEqual([...all].sort());
  });
});
