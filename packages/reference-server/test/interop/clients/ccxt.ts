// ccxt 4.5.84 (class `binance`) against the reference server. Pointed as real-clients.md says:
// `urls.api.public` and `urls.api.private` set to the server, markets limited to spot, currencies
// and margins not fetched, so that it never calls the real hosts.
import ccxt from "ccxt";
import { expect } from "vitest";
import {
  type BalanceSeen,
  CALL_TIMEOUT_MS,
  type InteropClient,
  type OrderSeen,
  type Target,
  type TickerKind,
} from "../suite.js";

type Json = Record<string, unknown>;

interface CcxtOrder {
  id: string;
  clientOrderId: string;
  info: Json;
}

function seen(order: CcxtOrder): OrderSeen {
  return { orderId: order.id, clientOrderId: order.clientOrderId, status: String(order.info.status) };
}

const MARKET = "BTC/USDT";
const marketOf = (symbol: string) => (symbol === "BTCUSDT" ? MARKET : symbol.replace(/(USDT|BTC)$/, "/$1"));

function exchangeFor(target: Target) {
  const exchange = new ccxt.binance({
    apiKey: target.apiKey,
    secret: target.apiSecret,
    timeout: CALL_TIMEOUT_MS,
    enableRateLimit: false,
    options: {
      fetchMarkets: { types: ["spot"] },
      fetchCurrencies: false,
      fetchMargins: false,
      defaultType: "spot",
    },
  });
  exchange.urls.api.public = `${target.url}/api/v3`;
  exchange.urls.api.private = `${target.url}/api/v3`;
  return exchange;
}

/** ccxt's implicit API: one method per endpoint, taking the raw parameters. */
type Implicit = Record<string, (params?: Json) => Promise<unknown>>;

function expectClass(name: string, code?: number) {
  return (error: unknown) => {
    expect(error).toBeInstanceOf((ccxt as unknown as Record<string, new () => Error>)[name]);
    if (code !== undefined) expect(String((error as Error).message)).toContain(`"code":${code}`);
  };
}

export const ccxtClient: InteropClient = {
  name: "ccxt@4.5.84",
  pointedBy: "urls.api.public / urls.api.private",
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
    const exchange = exchangeFor(target);
    const implicit = exchange as unknown as Implicit;
    const loaded = () => exchange.loadMarkets();
    return {
      ping: () => implicit.publicGetPing!(),
      time: () => exchange.fetchTime() as Promise<number>,
      exchangeInfo: async (symbols) => {
        if (symbols === undefined) return (await exchange.fetchMarkets()).map((m) => String(m?.id));
        const params = symbols.length === 1 ? { symbol: symbols[0] } : { symbols: JSON.stringify(symbols) };
        const info = (await implicit.publicGetExchangeInfo!(params)) as { symbols: { symbol: string }[] };
        return info.symbols.map((s) => s.symbol);
      },
      depth: async (symbol, limit) => {
        await loaded();
        const book = await exchange.fetchOrderBook(marketOf(symbol), limit);
        return { bids: book.bids.length, asks: book.asks.length, bestBid: Number(book.bids[0]?.[0]) };
      },
      trades: async (symbol, limit) => {
        const trades = (await implicit.publicGetTrades!({ symbol, limit })) as { id: number }[];
        return trades.map((t) => t.id);
      },
      historicalTrades: async (symbol, limit, fromId) => {
        const trades = (await implicit.publicGetHistoricalTrades!({ symbol, limit, fromId })) as {
          id: number;
        }[];
        return trades.map((t) => t.id);
      },
      aggTradesFromId: async (symbol, fromId, limit) => {
        const trades = (await implicit.publicGetAggTrades!({ symbol, fromId, limit })) as { a: number }[];
        return trades.map((t) => t.a);
      },
      // fetchTrades(symbol, since) asks aggTrades with startTime in epoch milliseconds.
      aggTradesByTime: async (symbol, startTime, endTime) => {
        await loaded();
        const trades = await exchange.fetchTrades(marketOf(symbol), startTime, 1000, { endTime });
        return trades.map((t) => Number(t.timestamp));
      },
      avgPrice: async (symbol) => Number(((await implicit.publicGetAvgPrice!({ symbol })) as Json).price),
      ticker: async (kind: TickerKind, symbols) => {
        await loaded();
        if (typeof symbols === "string") {
          const method = {
            price: "publicGetTickerPrice",
            bookTicker: "publicGetTickerBookTicker",
            "24hr": "publicGetTicker24hr",
          }[kind];
          const one = (await implicit[method]!({ symbol: symbols })) as Json;
          return [String(one.symbol)];
        }
        const markets = symbols?.map(marketOf);
        const fetched =
          kind === "24hr"
            ? await exchange.fetchTickers(markets)
            : kind === "bookTicker"
              ? await exchange.fetchBidsAsks(markets)
              : await exchange.fetchLastPrices(markets);
        return Object.keys(fetched).map((m) => m.replace("/", ""));
      },
      placeOrder: async (order) => {
        await loaded();
        const params: Json = {};
        if (order.stopPrice !== undefined) params.stopPrice = Number(order.stopPrice);
        if (order.quoteOrderQty !== undefined) params.quoteOrderQty = Number(order.quoteOrderQty);
        const type =
          order.type === "LIMIT" || order.type === "MARKET" ? order.type.toLowerCase() : order.type;
        const placed = await exchange.createOrder(
          marketOf(order.symbol),
          type,
          order.side.toLowerCase() as "buy" | "sell",
          order.quantity === undefined ? (undefined as unknown as number) : Number(order.quantity),
          order.price === undefined ? undefined : Number(order.price),
          params,
        );
        return seen(placed as unknown as CcxtOrder);
      },
      queryOrder: async (symbol, ref) => {
        await loaded();
        const found =
          "orderId" in ref
            ? await exchange.fetchOrder(ref.orderId, marketOf(symbol))
            : await exchange.fetchOrder(undefined as unknown as string, marketOf(symbol), {
                origClientOrderId: ref.clientOrderId,
              });
        return seen(found as unknown as CcxtOrder);
      },
      openOrders: async (symbol) => {
        await loaded();
        return (await exchange.fetchOpenOrders(marketOf(symbol))).map((o) => String(o.id));
      },
      allOrders: async (symbol) => {
        await loaded();
        return (await exchange.fetchOrders(marketOf(symbol))).map((o) => String(o.id));
      },
      cancelOrder: async (symbol, ref) => {
        await loaded();
        const cancelled =
          "orderId" in ref
            ? await exchange.cancelOrder(ref.orderId, marketOf(symbol))
            : await exchange.cancelOrder(undefined as unknown as string, marketOf(symbol), {
                origClientOrderId: ref.clientOrderId,
              });
        return seen(cancelled as unknown as CcxtOrder);
      },
      cancelAll: async (symbol) => {
        await loaded();
        return ((await exchange.cancelAllOrders(marketOf(symbol))) as unknown[]).length;
      },
      // fetchBalance, fetchMyTrades and fetchOHLCV, unchanged.
      balances: async () => {
        await loaded();
        const balance = (await exchange.fetchBalance()) as unknown as Record<string, Json>;
        const seen: Record<string, BalanceSeen> = {};
        for (const asset of Object.keys(balance.total ?? {})) {
          const one = balance[asset] as { free: number; used: number };
          seen[asset] = { free: Number(one.free), locked: Number(one.used) };
        }
        return seen;
      },
      myTrades: async (symbol) => {
        await loaded();
        return (await exchange.fetchMyTrades(marketOf(symbol))).map((t) => Number(t.id));
      },
      klines: async (symbol, interval, limit) => {
        await loaded();
        return (await exchange.fetchOHLCV(marketOf(symbol), interval, undefined, limit)).map((c) =>
          Number(c[0]),
        );
      },
    };
  },
  expectError: {
    "unknown order queried (-2013)": expectClass("OrderNotFound", -2013),
    "unknown order cancelled (-2011)": expectClass("OrderNotFound", -2011),
    // ccxt matches the live message text here ("Order would immediately match and take.").
    "LIMIT_MAKER that would take (-2010)": expectClass("OrderImmediatelyFillable"),
    "unknown symbol (-1121)": expectClass("BadSymbol", -1121),
    "stale timestamp (-1021)": expectClass("InvalidNonce", -1021),
    "wrong signature (-1022)": expectClass("AuthenticationError", -1022),
    "unknown API key (-2015)": expectClass("AuthenticationError", -2015),
    // ccxt raises by the HTTP status first: 429 and 418 are both DDoSProtection.
    "request weight over the limit (429, -1003)": expectClass("DDoSProtection", -1003),
    "IP banned after repeated 429s (418, -1003)": expectClass("DDoSProtection", -1003),
  },
};
