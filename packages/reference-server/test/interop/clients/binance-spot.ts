// @binance/spot 32.0.4, Binance's current modular connector, against the reference server.
// Pointed by `configurationRestAPI.basePath`; its defaults (1000 ms timeout, 3 retries with a 1 s
// backoff) are replaced by a long timeout and no retries, so a loaded machine cannot fail it.
import {
  BadRequestError,
  RateLimitBanError,
  Spot,
  TooManyRequestsError,
  UnauthorizedError,
} from "@binance/spot";
import { expect } from "vitest";
import {
  balancesByAsset,
  CALL_TIMEOUT_MS,
  type InteropClient,
  type OrderSeen,
  openTimesOf,
  type Target,
  type TickerKind,
} from "../suite.js";

type Json = Record<string, unknown>;
type Rest = Record<string, (params?: Json) => Promise<{ data(): Promise<unknown> }>>;

function restFor(target: Target): Rest {
  const client = new Spot({
    configurationRestAPI: {
      apiKey: target.apiKey,
      apiSecret: target.apiSecret,
      basePath: target.url,
      timeout: CALL_TIMEOUT_MS,
      retries: 0,
    },
  });
  return client.restAPI as unknown as Rest;
}

async function data<T>(rest: Rest, method: string, params?: Json): Promise<T> {
  const call = rest[method];
  if (!call) throw new Error(`@binance/spot has no ${method}`);
  return (await call.call(rest, params)).data() as Promise<T>;
}

function seen(order: Json): OrderSeen {
  return {
    orderId: String(order.orderId),
    clientOrderId: String(order.clientOrderId),
    status: String(order.status),
  };
}

const symbolsOf = (answer: unknown) =>
  (Array.isArray(answer) ? answer : [answer]).map((t) => String((t as Json).symbol));

function expectError(type: new (...args: never[]) => Error, code: number) {
  return (error: unknown) => {
    expect(error).toBeInstanceOf(type);
    expect((error as { code?: number }).code).toBe(code);
  };
}

export const binanceSpotClient: InteropClient = {
  name: "@binance/spot@32.0.4",
  pointedBy: "configurationRestAPI.basePath",
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
    const rest = restFor(target);
    const ref = (symbol: string, r: { orderId: string } | { clientOrderId: string }) =>
      "orderId" in r
        ? { symbol, orderId: Number(r.orderId) }
        : { symbol, origClientOrderId: r.clientOrderId };
    return {
      ping: () => data(rest, "ping"),
      time: async () => Number((await data<Json>(rest, "time")).serverTime),
      exchangeInfo: async (symbols) => {
        const params =
          symbols === undefined ? undefined : symbols.length === 1 ? { symbol: symbols[0] } : { symbols };
        return (await data<{ symbols: Json[] }>(rest, "exchangeInfo", params)).symbols.map((s) =>
          String(s.symbol),
        );
      },
      depth: async (symbol, limit) => {
        const book = await data<{ bids: string[][]; asks: string[][] }>(rest, "depth", { symbol, limit });
        return { bids: book.bids.length, asks: book.asks.length, bestBid: Number(book.bids[0]?.[0]) };
      },
      trades: async (symbol, limit) =>
        (await data<Json[]>(rest, "getTrades", { symbol, limit })).map((t) => Number(t.id)),
      historicalTrades: async (symbol, limit, fromId) =>
        (await data<Json[]>(rest, "historicalTrades", { symbol, limit, fromId })).map((t) => Number(t.id)),
      aggTradesFromId: async (symbol, fromId, limit) =>
        (await data<Json[]>(rest, "aggTrades", { symbol, fromId, limit })).map((t) => Number(t.a)),
      aggTradesByTime: async (symbol, startTime, endTime) =>
        (await data<Json[]>(rest, "aggTrades", { symbol, startTime, endTime, limit: 1000 })).map((t) =>
          Number(t.T),
        ),
      avgPrice: async (symbol) => Number((await data<Json>(rest, "avgPrice", { symbol })).price),
      ticker: async (kind: TickerKind, symbols) => {
        const method = { price: "tickerPrice", bookTicker: "tickerBookTicker", "24hr": "ticker24hr" }[kind];
        const params =
          typeof symbols === "string" ? { symbol: symbols } : symbols ? { symbols: [...symbols] } : undefined;
        return symbolsOf(await data(rest, method, params));
      },
      placeOrder: async (order) => {
        const params: Json = { ...order };
        for (const name of ["quantity", "quoteOrderQty", "price", "stopPrice"]) {
          if (params[name] !== undefined) params[name] = Number(params[name]);
        }
        if (order.price !== undefined && order.type !== "LIMIT_MAKER") params.timeInForce = "GTC";
        return seen(await data<Json>(rest, "newOrder", params));
      },
      queryOrder: async (symbol, r) => seen(await data<Json>(rest, "getOrder", ref(symbol, r))),
      openOrders: async (symbol) =>
        (await data<Json[]>(rest, "getOpenOrders", { symbol })).map((o) => String(o.orderId)),
      allOrders: async (symbol) =>
        (await data<Json[]>(rest, "allOrders", { symbol })).map((o) => String(o.orderId)),
      cancelOrder: async (symbol, r) => seen(await data<Json>(rest, "deleteOrder", ref(symbol, r))),
      cancelAll: async (symbol) => (await data<unknown[]>(rest, "deleteOpenOrders", { symbol })).length,
      balances: async () =>
        balancesByAsset((await data<{ balances: Json[] }>(rest, "getAccount")).balances as never),
      myTrades: async (symbol) => (await data<Json[]>(rest, "myTrades", { symbol })).map((t) => Number(t.id)),
      klines: async (symbol, interval, limit) =>
        openTimesOf(await data(rest, "klines", { symbol, interval, limit })),
    };
  },
  expectError: {
    "unknown order queried (-2013)": expectError(BadRequestError, -2013),
    "unknown order cancelled (-2011)": expectError(BadRequestError, -2011),
    "LIMIT_MAKER that would take (-2010)": expectError(BadRequestError, -2010),
    "unknown symbol (-1121)": expectError(BadRequestError, -1121),
    "stale timestamp (-1021)": expectError(BadRequestError, -1021),
    "wrong signature (-1022)": expectError(BadRequestError, -1022),
    "unknown API key (-2015)": expectError(UnauthorizedError, -2015),
    "request weight over the limit (429, -1003)": expectError(TooManyRequestsError, -1003),
    "IP banned after repeated 429s (418, -1003)": expectError(RateLimitBanError, -1003),
  },
};
