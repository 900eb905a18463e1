// binance 3.6.5 (tiagosiebler's SDK), MainClient, against the reference server. Pointed by its
// `baseUrl` option with `disableTimeSync` (its time sync would call getServerTime, which goes to
// the production host whatever `baseUrl` says: a bug of the client, so the suite never calls
// getServerTime and reads the time with the client's generic `get` instead). Its REST errors are
// plain objects `{ code, message, body, ... }`.
import { MainClient } from "binance";
import { expect } from "vitest";
import {
  balancesByAsset,
  CALL_TIMEOUT_MS,
  type InteropClient,
  type OrderSeen,
  openTimesOf,
  type TickerKind,
} from "../suite.js";

type Json = Record<string, unknown>;
type Loose = Record<string, (...args: unknown[]) => Promise<unknown>>;

function seen(order: unknown): OrderSeen {
  const o = order as Json;
  return { orderId: String(o.orderId), clientOrderId: String(o.clientOrderId), status: String(o.status) };
}

const symbolsOf = (answer: unknown) =>
  (Array.isArray(answer) ? answer : [answer]).map((t) => String((t as Json).symbol));

function expectCode(code: number) {
  return (error: unknown) => {
    expect(error).toMatchObject({ code, body: { code } });
    expect(typeof (error as Json).message).toBe("string");
  };
}

export const binanceClient: InteropClient = {
  name: "binance@3.6.5",
  pointedBy: "the baseUrl option (with disableTimeSync)",
  notOffered: {},
  orderTypes: [
    "LIMIT",
    "MARKET",
    "STOP_LOSS",
    "STOP_LOSS_LIMIT",
    "TAKE_PROFIT",
    "TAKE_PROFIT_LIMIT",
    "LIMIT_MAKER",
  ],
  create(target) {
    const main = new MainClient(
      {
        api_key: target.apiKey,
        api_secret: target.apiSecret,
        baseUrl: target.url,
        disableTimeSync: true,
        beautifyResponses: false,
      },
      { timeout: CALL_TIMEOUT_MS },
    );
    const api = main as unknown as Loose;
    const ref = (symbol: string, r: { orderId: string } | { clientOrderId: string }) =>
      "orderId" in r
        ? { symbol, orderId: Number(r.orderId) }
        : { symbol, origClientOrderId: r.clientOrderId };
    return {
      ping: () => api.testConnectivity!(),
      time: async () => Number(((await api.get!("api/v3/time")) as Json).serverTime),
      exchangeInfo: async (symbols) => {
        const params =
          symbols === undefined ? undefined : symbols.length === 1 ? { symbol: symbols[0] } : { symbols };
        return ((await api.getExchangeInfo!(params)) as { symbols: Json[] }).symbols.map((s) =>
          String(s.symbol),
        );
      },
      depth: async (symbol, limit) => {
        const book = (await api.getOrderBook!({ symbol, limit })) as { bids: string[][]; asks: string[][] };
        return { bids: book.bids.length, asks: book.asks.length, bestBid: Number(book.bids[0]?.[0]) };
      },
      trades: async (symbol, limit) =>
        ((await api.getRecentTrades!({ symbol, limit })) as Json[]).map((t) => Number(t.id)),
      historicalTrades: async (symbol, limit, fromId) =>
        ((await api.getHistoricalTrades!({ symbol, limit, fromId })) as Json[]).map((t) => Number(t.id)),
      aggTradesFromId: async (symbol, fromId, limit) =>
        ((await api.getAggregateTrades!({ symbol, fromId, limit })) as Json[]).map((t) => Number(t.a)),
      aggTradesByTime: async (symbol, startTime, endTime) =>
        ((await api.getAggregateTrades!({ symbol, startTime, endTime, limit: 1000 })) as Json[]).map((t) =>
          Number(t.T),
        ),
      avgPrice: async (symbol) => Number(((await api.getAvgPrice!({ symbol })) as Json).price),
      ticker: async (kind: TickerKind, symbols) => {
        const method = {
          price: "getSymbolPriceTicker",
          bookTicker: "getSymbolOrderBookTicker",
          "24hr": "get24hrChangeStatistics",
        }[kind];
        const params =
          typeof symbols === "string" ? { symbol: symbols } : symbols ? { symbols: [...symbols] } : undefined;
        return symbolsOf(await api[method]!(params));
      },
      placeOrder: async (order) => {
        const params: Json = { ...order };
        if (order.price !== undefined && order.type !== "LIMIT_MAKER") params.timeInForce = "GTC";
        return seen(await api.submitNewOrder!(params));
      },
      queryOrder: async (symbol, r) => seen(await api.getOrder!(ref(symbol, r))),
      openOrders: async (symbol) =>
        ((await api.getOpenOrders!({ symbol })) as Json[]).map((o) => String(o.orderId)),
      allOrders: async (symbol) =>
        ((await api.getAllOrders!({ symbol })) as Json[]).map((o) => String(o.orderId)),
      cancelOrder: async (symbol, r) => seen(await api.cancelOrder!(ref(symbol, r))),
      cancelAll: async (symbol) => ((await api.cancelAllSymbolOrders!({ symbol })) as unknown[]).length,
      balances: async () =>
        balancesByAsset(((await api.getAccountInformation!()) as { balances: Json[] }).balances as never),
      myTrades: async (symbol) =>
        ((await api.getAccountTradeList!({ symbol })) as Json[]).map((t) => Number(t.id)),
      klines: async (symbol, interval, limit) =>
        openTimesOf(await api.getKlines!({ symbol, interval, limit })),
    };
  },
  expectError: {
    "unknown order queried (-2013)": expectCode(-2013),
    "unknown order cancelled (-2011)": expectCode(-2011),
    "LIMIT_MAKER that would take (-2010)": expectCode(-2010),
    "unknown symbol (-1121)": expectCode(-1121),
    "stale timestamp (-1021)": expectCode(-1021),
    "wrong signature (-1022)": expectCode(-1022),
    "unknown API key (-2015)": expectCode(-2015),
    "request weight over the limit (429, -1003)": expectCode(-1003),
    "IP banned after repeated 429s (418, -1003)": expectCode(-1003),
  },
};
