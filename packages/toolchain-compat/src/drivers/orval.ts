// Every operation through orval's generated fetch functions.
import * as api from "../generated/orval/api.js";
import { type CallOutcome, type Driver, RESTING_ORDER, SIGNED } from "./driver.js";
import { configureOrval } from "./orval-fetch.js";

function outcome(result: { data?: unknown; status: number }, sent: object): CallOutcome {
  return { status: result.status, body: result.data, sent: { ...sent } };
}

export const orvalDriver: Driver = {
  generator: "orval",
  connect(context) {
    configureOrval(context);
  },
  workarounds: [
    {
      key: "symbols",
      problem:
        "orval's fetch client crashes on a query parameter described with `content` (it reads `schema.type` of a parameter that has none)",
      fix: "`input.override.transformer` gives `symbols` a string schema; the call passes `JSON.stringify([...])`",
      operations: ["exchange_info"],
    },
    {
      key: "5XX",
      problem: "orval writes a range status key into a type as it is (`status: 5XX`), which does not compile",
      fix: "the same transformer renames each `5XX` response to `default` (typed `status: number`)",
      operations: "all",
    },
    {
      key: "base URL",
      problem: "the generated functions fetch bare paths (`/api/v3/ping`)",
      fix: "the `mutator` option: generated calls go through a fetch of ours that prefixes the base URL",
      operations: "all",
    },
    {
      key: "signing",
      problem:
        "no generator reads `x-auth-class`/`x-signing`; the key header and the HMAC signature are not sent",
      fix: "the same mutator adds `X-MBX-APIKEY`, `timestamp` and `signature` (to the form body when there is one)",
      operations: SIGNED,
    },
  ],
  calls: {
    ping: async () => outcome(await api.ping(), {}),
    server_time: async () => outcome(await api.serverTime(), {}),
    exchange_info: async ({ symbol }) => {
      const params = { symbols: JSON.stringify([symbol, "ETHUSDT"]) };
      return outcome(await api.exchangeInfo(params), params);
    },
    order_book: async ({ symbol }) => {
      const params = { symbol, limit: 5 };
      return outcome(await api.orderBook(params), params);
    },
    recent_trades_list: async ({ symbol }) => {
      const params = { symbol, limit: 5 };
      return outcome(await api.recentTradesList(params), params);
    },
    historical_trades: async ({ symbol }) => {
      const params = { symbol, limit: 5, fromId: 0 };
      return outcome(await api.historicalTrades(params), params);
    },
    aggTrades: async ({ symbol }) => {
      const params = { symbol, limit: 5, startTime: new Date(Date.now() - 3_600_000).toISOString() };
      return outcome(await api.aggTrades(params), params);
    },
    current_average_price: async ({ symbol }) => {
      const params = { symbol };
      return outcome(await api.currentAveragePrice(params), params);
    },
    order_book_ticker: async ({ symbol }) => {
      const params = { symbol };
      return outcome(await api.orderBookTicker(params), params);
    },
    symbol_price_ticker: async ({ symbol }) => {
      const params = { symbol };
      return outcome(await api.symbolPriceTicker(params), params);
    },
    ticker_price_change_statistics24hr: async ({ symbol }) => {
      const params = { symbol };
      return outcome(await api.tickerPriceChangeStatistics24hr(params), params);
    },
    new_order: async ({ symbol }) => {
      // Everything the query string requires there; the rest, and the signature, in the form body.
      const { side, type, ...rest } = RESTING_ORDER;
      const params = { symbol, side, type };
      const form = { ...rest, newOrderRespType: "ACK" as const };
      return outcome(await api.newOrder(params, form), { ...params, ...form });
    },
    cancel_order: async ({ symbol, orderId }) => {
      const params = { symbol, ...(orderId === undefined ? {} : { orderId }) };
      return outcome(await api.cancelOrder(params), params);
    },
    cancel_all_orders: async ({ symbol }) => {
      const params = { symbol };
      return outcome(await api.cancelAllOrders(params), params);
    },
    query_order: async ({ symbol, orderId }) => {
      const params = { symbol, ...(orderId === undefined ? {} : { orderId }) };
      return outcome(await api.queryOrder(params), params);
    },
    open_orders: async ({ symbol }) => {
      const params = { symbol };
      return outcome(await api.openOrders(params), params);
    },
    all_orders: async ({ symbol }) => {
      const params = { symbol };
      return outcome(await api.allOrders(params), params);
    },
  },
};
