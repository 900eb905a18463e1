// binance-api-node 0.13.10 against the reference server, pointed by its `httpBase` option. Its
// errors are Errors with the API's `code`. It writes an array parameter as a comma list, which the
// live API refuses for `symbols`; the JSON text of the array, passed as a string, is what works.
import BinanceModule from "binance-api-node";
import { expect } from "vitest";
import {
  balancesByAsset,
  type InteropClient,
  type OrderSeen,
  type Target,
  type TickerKind,
} from "../suite.js";

type Json = Record<string, unknown>;
type Loose = Record<string, (payload?: Json) => Promise<unknown>>;

const Binance = ((BinanceModule as unknown as { default?: unknown }).default ?? BinanceModule) as (
  options: Json,
) => Loose;

export function clientFor(target: Target): Loose {
  return Binance({ apiKey: target.apiKey, apiSecret: target.apiSecret, httpBase: target.url });
}

function seen(order: unknown): OrderSeen {
  const o = order as Json;
  return { orderId: String(o.orderId), clientOrderId: String(o.clientOrderId), status: String(o.status) };
}

const symbolsOf = (answer: unknown) =>
  (Array.isArray(answer) ? answer : [answer]).map((t) => String((t as Json).symbol));

function expectCode(code: number) {
  return (error: unknown) => {
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: number }).code).toBe(code);
  };
}

export const binanceApiNodeClient: InteropClient = {
  name: "binance-api-node@0.13.10",
  pointedBy: "the httpBase option",
  notOffered: {
    "bookTicker one": "allBookTickers() takes no symbol",
    "bookTicker several": "allBookTickers() takes no symbols",
  },
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
    const api = clientFor(target);
    const ref = (symbol: string, r: { orderId: string } | { clientOrderId: string }) =>
      "orderId" in r ? { symbol, orderId: r.orderId } : { symbol, origClientOrderId: r.clientOrderId };
    // A list of symbols as the JSON text the API takes (the client would write an array as A,B).
    const selection = (symbols: string | readonly string[] | undefined) =>
      typeof symbols === "string"
        ? { symbol: symbols }
        : symbols
          ? { symbols: JSON.stringify(symbols) }
          : undefined;
    return {
      ping: () => api.ping!(),
      time: async () => Number(await api.time!()),
      exchangeInfo: async (symbols) => {
        const answer = (await api.exchangeInfo!(
          symbols && selection(symbols.length === 1 ? symbols[0] : symbols),
        )) as {
          symbols: Json[];
        };
        return answer.symbols.map((s) => String(s.symbol));
      },
      depth: async (symbol, limit) => {
        const book = (await api.book!({ symbol, limit })) as { bids: Json[]; asks: Json[] };
        return { bids: book.bids.length, asks: book.asks.length, bestBid: Number(book.bids[0]?.price) };
      },
      trades: async (symbol, limit) =>
        ((await api.trades!({ symbol, limit })) as Json[]).map((t) => Number(t.id)),
      historicalTrades: async (symbol, limit, fromId) =>
        ((await api.tradesHistory!({ symbol, limit, fromId })) as Json[]).map((t) => Number(t.id)),
      aggTradesFromId: async (symbol, fromId, limit) =>
        ((await api.aggTrades!({ symbol, fromId, limit })) as Json[]).map((t) => Number(t.aggId)),
      aggTradesByTime: async (symbol, startTime, endTime) =>
        ((await api.aggTrades!({ symbol, startTime, endTime, limit: 1000 })) as Json[]).map((t) =>
          Number(t.timestamp),
        ),
      avgPrice: async (symbol) => Number(((await api.avgPrice!({ symbol })) as Json).price),
      ticker: async (kind: TickerKind, symbols) => {
        if (kind === "price") return Object.keys((await api.prices!(selection(symbols))) as Json);
        if (kind === "bookTicker") return Object.keys((await api.allBookTickers!()) as Json);
        return symbolsOf(await api.dailyStats!(selection(symbols)));
      },
      placeOrder: async (order) => seen(await api.order!({ ...order })),
      queryOrder: async (symbol, r) => seen(await api.getOrder!(ref(symbol, r))),
      openOrders: async (symbol) =>
        ((await api.openOrders!({ symbol })) as Json[]).map((o) => String(o.orderId)),
      allOrders: async (symbol) =>
        ((await api.allOrders!({ symbol })) as Json[]).map((o) => String(o.orderId)),
      cancelOrder: async (symbol, r) => seen(await api.cancelOrder!(ref(symbol, r))),
      cancelAll: async (symbol) => ((await api.cancelOpenOrders!({ symbol })) as unknown[]).length,
      balances: async () =>
        balancesByAsset(((await api.accountInfo!()) as { balances: Json[] }).balances as never),
      myTrades: async (symbol) => ((await api.myTrades!({ symbol })) as Json[]).map((t) => Number(t.id)),
      // candles() answers objects named after the live API's columns.
      klines: async (symbol, interval, limit) =>
        ((await api.candles!({ symbol, interval, limit })) as Json[]).map((c) => Number(c.openTime)),
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
