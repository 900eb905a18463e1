// node-binance-api 1.0.33 against the reference server, pointed by `urls.base` (which must end in
// `/api/`). Its request timeout is its recvWindow, so the suite raises recvWindow to the most the
// API allows, 60 s (the server refuses more, -1102). Its REST errors are Errors whose message is the
// answer's body text.
import NodeBinanceModule from "node-binance-api";
import { expect } from "vitest";
import type { InteropClient, OrderSeen, TickerKind } from "../suite.js";

/** The largest recvWindow the API takes (x-signing), which is also this client's request timeout. */
const RECV_WINDOW_MAX_MS = 60_000;

type Json = Record<string, unknown>;
type Loose = Record<string, (...args: unknown[]) => Promise<unknown>>;

const NodeBinance = ((NodeBinanceModule as unknown as { default?: unknown }).default ??
  NodeBinanceModule) as new (
  options: Json,
) => Loose;

function seen(order: unknown): OrderSeen {
  const o = order as Json;
  return { orderId: String(o.orderId), clientOrderId: String(o.clientOrderId), status: String(o.status) };
}

const symbolsOf = (answer: unknown) =>
  (Array.isArray(answer) ? answer : [answer]).map((t) => String((t as Json).symbol));

/** The body the client puts in its Error's message. */
function expectBody(code: number) {
  return (error: unknown) => {
    expect(error).toBeInstanceOf(Error);
    expect(JSON.parse((error as Error).message)).toMatchObject({ code, msg: expect.any(String) });
  };
}

export const nodeBinanceApiClient: InteropClient = {
  name: "node-binance-api@1.0.33",
  pointedBy: "urls.base (ending in /api/)",
  notOffered: {
    "exchangeInfo one": "exchangeInfo() takes no parameters",
    "exchangeInfo several": "exchangeInfo() takes no parameters",
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
    const api = new NodeBinance({
      APIKEY: target.apiKey,
      APISECRET: target.apiSecret,
      recvWindow: RECV_WINDOW_MAX_MS,
      urls: { base: `${target.url}/api/` },
    });
    const flags = (r: { orderId: string } | { clientOrderId: string }) =>
      "orderId" in r ? [r.orderId, {}] : [undefined, { origClientOrderId: r.clientOrderId }];
    const symbolsParam = (symbols: readonly string[] | undefined) =>
      symbols === undefined ? {} : { symbols: JSON.stringify(symbols) };
    return {
      ping: () => api.ping!(),
      time: async () => Number(((await api.time!()) as Json).serverTime),
      exchangeInfo: async () =>
        ((await api.exchangeInfo!()) as { symbols: Json[] }).symbols.map((s) => String(s.symbol)),
      depth: async (symbol, limit) => {
        const book = (await api.depth!(symbol, limit)) as { bids: Json[]; asks: Json[] };
        return { bids: book.bids.length, asks: book.asks.length, bestBid: Number(book.bids[0]?.price) };
      },
      trades: async (symbol, limit) =>
        ((await api.recentTrades!(symbol, limit)) as Json[]).map((t) => Number(t.id)),
      historicalTrades: async (symbol, limit, fromId) =>
        ((await api.historicalTrades!(symbol, limit, fromId)) as Json[]).map((t) => Number(t.id)),
      aggTradesFromId: async (symbol, fromId, limit) =>
        ((await api.aggTrades!(symbol, { fromId, limit })) as Json[]).map((t) => Number(t.aggId)),
      aggTradesByTime: async (symbol, startTime, endTime) =>
        ((await api.aggTrades!(symbol, { startTime, endTime, limit: 1000 })) as Json[]).map((t) =>
          Number(t.timestamp),
        ),
      avgPrice: async (symbol) => Number(((await api.avgPrice!(symbol)) as Json).price),
      ticker: async (kind: TickerKind, symbols) => {
        const one = typeof symbols === "string" ? symbols : undefined;
        const params = typeof symbols === "string" ? {} : symbolsParam(symbols);
        if (kind === "price") return Object.keys((await api.prices!(one, params)) as Json);
        if (kind === "bookTicker") return Object.keys((await api.bookTickers!(one, params)) as Json);
        return symbolsOf(await api.prevDay!(one, params));
      },
      placeOrder: async (order) => {
        const params: Json = {};
        if (order.stopPrice !== undefined) params.stopPrice = Number(order.stopPrice);
        if (order.quoteOrderQty !== undefined) params.quoteOrderQty = Number(order.quoteOrderQty);
        const quantity = order.quantity === undefined ? undefined : Number(order.quantity);
        const price = order.price === undefined ? undefined : Number(order.price);
        return seen(await api.order!(order.type, order.side, order.symbol, quantity, price, params));
      },
      queryOrder: async (symbol, r) => seen(await api.orderStatus!(symbol, ...flags(r))),
      openOrders: async (symbol) => ((await api.openOrders!(symbol)) as Json[]).map((o) => String(o.orderId)),
      allOrders: async (symbol) => ((await api.allOrders!(symbol)) as Json[]).map((o) => String(o.orderId)),
      cancelOrder: async (symbol, r) => seen(await api.cancel!(symbol, ...flags(r))),
      cancelAll: async (symbol) => ((await api.cancelAll!(symbol)) as unknown[]).length,
      // balance() answers { asset: { available, onOrder } }.
      balances: async () =>
        Object.fromEntries(
          Object.entries((await api.balance!()) as Record<string, Json>).map(([asset, b]) => [
            asset,
            { free: Number(b.available), locked: Number(b.onOrder) },
          ]),
        ),
      myTrades: async (symbol) => ((await api.trades!(symbol)) as Json[]).map((t) => Number(t.id)),
      klines: async (symbol, interval, limit) =>
        ((await api.candlesticks!(symbol, interval, { limit })) as Json[]).map((c) => Number(c.openTime)),
    };
  },
  expectError: {
    "unknown order queried (-2013)": expectBody(-2013),
    "unknown order cancelled (-2011)": expectBody(-2011),
    "LIMIT_MAKER that would take (-2010)": expectBody(-2010),
    "unknown symbol (-1121)": expectBody(-1121),
    "stale timestamp (-1021)": expectBody(-1021),
    "wrong signature (-1022)": expectBody(-1022),
    "unknown API key (-2015)": expectBody(-2015),
    "request weight over the limit (429, -1003)": expectBody(-1003),
    "IP banned after repeated 429s (418, -1003)": expectBody(-1003),
  },
};
