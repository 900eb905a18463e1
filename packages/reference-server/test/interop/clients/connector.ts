// @binance/connector 3.6.1, Binance's older official Node connector (axios), pointed by its
// `baseURL` option. Its REST errors are axios errors carrying the answer (`response.status`,
// `response.data` = `{ code, msg }`).
import { createRequire } from "node:module";
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
type Loose = Record<string, (...args: unknown[]) => Promise<{ data: unknown }>>;

const require = createRequire(import.meta.url);
const { Spot } = require("@binance/connector") as {
  Spot: new (key: string, secret: string, options: Json) => Loose;
};

function seen(order: unknown): OrderSeen {
  const o = order as Json;
  return { orderId: String(o.orderId), clientOrderId: String(o.clientOrderId), status: String(o.status) };
}

const symbolsOf = (answer: unknown) =>
  (Array.isArray(answer) ? answer : [answer]).map((t) => String((t as Json).symbol));

function expectAnswer(status: number, code: number) {
  return (error: unknown) => expect(error).toMatchObject({ response: { status, data: { code } } });
}

export const connectorClient: InteropClient = {
  name: "@binance/connector@3.6.1",
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
    const spot = new Spot(target.apiKey, target.apiSecret, {
      baseURL: target.url,
      timeout: CALL_TIMEOUT_MS,
      logger: { log() {}, error() {}, warn() {}, info() {}, debug() {} },
    });
    const data = async (method: string, ...args: unknown[]) => (await spot[method]!(...args)).data;
    const ref = (r: { orderId: string } | { clientOrderId: string }) =>
      "orderId" in r ? { orderId: Number(r.orderId) } : { origClientOrderId: r.clientOrderId };
    return {
      ping: () => data("ping"),
      time: async () => Number(((await data("time")) as Json).serverTime),
      exchangeInfo: async (symbols) => {
        const options =
          symbols === undefined ? {} : symbols.length === 1 ? { symbol: symbols[0] } : { symbols };
        return ((await data("exchangeInfo", options)) as { symbols: Json[] }).symbols.map((s) =>
          String(s.symbol),
        );
      },
      depth: async (symbol, limit) => {
        const book = (await data("depth", symbol, { limit })) as { bids: string[][]; asks: string[][] };
        return { bids: book.bids.length, asks: book.asks.length, bestBid: Number(book.bids[0]?.[0]) };
      },
      trades: async (symbol, limit) =>
        ((await data("trades", symbol, { limit })) as Json[]).map((t) => Number(t.id)),
      historicalTrades: async (symbol, limit, fromId) =>
        ((await data("historicalTrades", symbol, { limit, fromId })) as Json[]).map((t) => Number(t.id)),
      aggTradesFromId: async (symbol, fromId, limit) =>
        ((await data("aggTrades", symbol, { fromId, limit })) as Json[]).map((t) => Number(t.a)),
      aggTradesByTime: async (symbol, startTime, endTime) =>
        ((await data("aggTrades", symbol, { startTime, endTime, limit: 1000 })) as Json[]).map((t) =>
          Number(t.T),
        ),
      avgPrice: async (symbol) => Number(((await data("avgPrice", symbol)) as Json).price),
      ticker: async (kind: TickerKind, symbols) => {
        const method = { price: "tickerPrice", bookTicker: "bookTicker", "24hr": "ticker24hr" }[kind];
        const one = typeof symbols === "string" ? symbols : "";
        const several = typeof symbols === "string" || symbols === undefined ? [] : [...symbols];
        return symbolsOf(await data(method, one, several));
      },
      placeOrder: async (order) => {
        const { symbol, side, type, ...rest } = order;
        const options: Json = { ...rest };
        if (order.price !== undefined && type !== "LIMIT_MAKER") options.timeInForce = "GTC";
        return seen(await data("newOrder", symbol, side, type, options));
      },
      queryOrder: async (symbol, r) => seen(await data("getOrder", symbol, ref(r))),
      openOrders: async (symbol) =>
        ((await data("openOrders", { symbol })) as Json[]).map((o) => String(o.orderId)),
      allOrders: async (symbol) =>
        ((await data("allOrders", symbol)) as Json[]).map((o) => String(o.orderId)),
      cancelOrder: async (symbol, r) => seen(await data("cancelOrder", symbol, ref(r))),
      cancelAll: async (symbol) => ((await data("cancelOpenOrders", symbol)) as unknown[]).length,
      balances: async () =>
        balancesByAsset(((await data("account")) as { balances: Json[] }).balances as never),
      myTrades: async (symbol) => ((await data("myTrades", symbol)) as Json[]).map((t) => Number(t.id)),
      klines: async (symbol, interval, limit) =>
        openTimesOf(await data("klines", symbol, interval, { limit })),
    };
  },
  expectError: {
    "unknown order queried (-2013)": expectAnswer(400, -2013),
    "unknown order cancelled (-2011)": expectAnswer(400, -2011),
    "LIMIT_MAKER that would take (-2010)": expectAnswer(400, -2010),
    "unknown symbol (-1121)": expectAnswer(400, -1121),
    "stale timestamp (-1021)": expectAnswer(400, -1021),
    "wrong signature (-1022)": expectAnswer(400, -1022),
    "unknown API key (-2015)": expectAnswer(401, -2015),
    "request weight over the limit (429, -1003)": expectAnswer(429, -1003),
    "IP banned after repeated 429s (418, -1003)": expectAnswer(418, -1003),
  },
};
