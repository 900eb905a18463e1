// @binance/connector-typescript 0.3.16 against the reference server, pointed by its `baseURL`
// option. Its REST errors are thrown as the API's `msg` text alone (a string, no code), so the
// error checks compare the live API's message texts.
import { Spot } from "@binance/connector-typescript";
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

function expectMessage(text: string | RegExp) {
  return (error: unknown) => {
    expect(typeof error).toBe("string");
    expect(error).toMatch(text);
  };
}

export const connectorTypescriptClient: InteropClient = {
  name: "@binance/connector-typescript@0.3.16",
  pointedBy: "the baseURL option",
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
    const spot = new Spot(target.apiKey, target.apiSecret, { baseURL: target.url, timeout: CALL_TIMEOUT_MS });
    const api = spot as unknown as Loose;
    const ref = (r: { orderId: string } | { clientOrderId: string }) =>
      "orderId" in r ? { orderId: Number(r.orderId) } : { origClientOrderId: r.clientOrderId };
    return {
      ping: () => api.testConnectivity!(),
      time: async () => Number(((await api.checkServerTime!()) as Json).serverTime),
      exchangeInfo: async (symbols) => {
        const options =
          symbols === undefined ? undefined : symbols.length === 1 ? { symbol: symbols[0] } : { symbols };
        const info = (await api.exchangeInformation!(options)) as { symbols: Json[] };
        return info.symbols.map((s) => String(s.symbol));
      },
      depth: async (symbol, limit) => {
        const book = (await api.orderBook!(symbol, { limit })) as { bids: string[][]; asks: string[][] };
        return { bids: book.bids.length, asks: book.asks.length, bestBid: Number(book.bids[0]?.[0]) };
      },
      trades: async (symbol, limit) =>
        ((await api.recentTradesList!(symbol, { limit })) as Json[]).map((t) => Number(t.id)),
      historicalTrades: async (symbol, limit, fromId) =>
        ((await api.oldTradeLookup!(symbol, { limit, fromId })) as Json[]).map((t) => Number(t.id)),
      aggTradesFromId: async (symbol, fromId, limit) =>
        ((await api.compressedAggregateTradesList!(symbol, { fromId, limit })) as Json[]).map((t) =>
          Number(t.a),
        ),
      aggTradesByTime: async (symbol, startTime, endTime) =>
        (
          (await api.compressedAggregateTradesList!(symbol, { startTime, endTime, limit: 1000 })) as Json[]
        ).map((t) => Number(t.T)),
      avgPrice: async (symbol) => Number(((await api.currentAveragePrice!(symbol)) as Json).price),
      ticker: async (kind: TickerKind, symbols) => {
        const method = {
          price: "symbolPriceTicker",
          bookTicker: "symbolOrderBookTicker",
          "24hr": "ticker24hr",
        }[kind];
        const options =
          typeof symbols === "string" ? { symbol: symbols } : symbols ? { symbols: [...symbols] } : undefined;
        return symbolsOf(await api[method]!(options));
      },
      placeOrder: async (order) => {
        const { symbol, side, type, ...rest } = order;
        const options: Json = {};
        for (const [name, value] of Object.entries(rest)) options[name] = Number(value);
        if (order.price !== undefined && type !== "LIMIT_MAKER") options.timeInForce = "GTC";
        return seen(await api.newOrder!(symbol, side, type, options));
      },
      queryOrder: async (symbol, r) => seen(await api.getOrder!(symbol, ref(r))),
      openOrders: async (symbol) =>
        ((await api.currentOpenOrders!({ symbol })) as Json[]).map((o) => String(o.orderId)),
      allOrders: async (symbol) => ((await api.allOrders!(symbol)) as Json[]).map((o) => String(o.orderId)),
      cancelOrder: async (symbol, r) => seen(await api.cancelOrder!(symbol, ref(r))),
      cancelAll: async (symbol) => ((await api.cancelAllOpenOrdersOnASymbol!(symbol)) as unknown[]).length,
      balances: async () =>
        balancesByAsset(((await api.accountInformation!()) as { balances: Json[] }).balances as never),
      myTrades: async (symbol) => ((await api.accountTradeList!(symbol)) as Json[]).map((t) => Number(t.id)),
      klines: async (symbol, interval, limit) =>
        openTimesOf(await api.klineCandlestickData!(symbol, interval, { limit })),
    };
  },
  expectError: {
    "unknown order queried (-2013)": expectMessage("Order does not exist."),
    "unknown order cancelled (-2011)": expectMessage("Unknown order sent."),
    "LIMIT_MAKER that would take (-2010)": expectMessage("Order would immediately match and take."),
    "unknown symbol (-1121)": expectMessage("Invalid symbol."),
    "stale timestamp (-1021)": expectMessage("Timestamp for this request is outside of the recvWindow."),
    "wrong signature (-1022)": expectMessage("Signature for this request is not valid."),
    "unknown API key (-2015)": expectMessage("Invalid API-key, IP, or permissions for action."),
    "request weight over the limit (429, -1003)": expectMessage(
      /^Too much request weight used; current limit is 10 /,
    ),
    "IP banned after repeated 429s (418, -1003)": expectMessage(
      /^Way too much request weight used; IP banned until \d+\./,
    ),
  },
};
