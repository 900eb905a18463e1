// Every operation through openapi-typescript's types and openapi-fetch.
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "../generated/openapi-fetch/schema.js";
import { type CallOutcome, type Driver, RESTING_ORDER, SIGNED } from "./driver.js";
import { signRequest } from "./signing.js";

let client: Client<paths> | undefined;

function api(): Client<paths> {
  if (!client) throw new Error("openapi-fetch driver: connect() first");
  return client;
}

function outcome(result: { data?: unknown; error?: unknown; response: Response }, sent: object): CallOutcome {
  return { status: result.response.status, body: result.data ?? result.error, sent: { ...sent } };
}

export const openapiFetchDriver: Driver = {
  generator: "openapi-fetch",
  connect(context) {
    client = createClient<paths>({ baseUrl: context.baseUrl });
    client.use({ onRequest: ({ request }) => signRequest(request, context) });
  },
  workarounds: [
    {
      key: "symbols",
      problem:
        "openapi-typescript types a `content: application/json` query parameter as `string` (the schema's array is not used)",
      fix: "pass `JSON.stringify([...])`; openapi-fetch percent-encodes it into the one query value the API expects",
      operations: ["exchange_info"],
    },
    {
      key: "signing",
      problem:
        "no generator reads `x-auth-class`/`x-signing`; the key header and the HMAC signature are not sent",
      fix: "`client.use({ onRequest })` middleware adds `X-MBX-APIKEY`, `timestamp` and `signature` (over the exact query string)",
      operations: SIGNED,
    },
  ],
  calls: {
    ping: async () => outcome(await api().GET("/api/v3/ping"), {}),
    server_time: async () => outcome(await api().GET("/api/v3/time"), {}),
    exchange_info: async ({ symbol }) => {
      const query = { symbols: JSON.stringify([symbol, "ETHUSDT"]) };
      return outcome(await api().GET("/api/v3/exchangeInfo", { params: { query } }), query);
    },
    order_book: async ({ symbol }) => {
      const query = { symbol, limit: 5 };
      return outcome(await api().GET("/api/v3/depth", { params: { query } }), query);
    },
    recent_trades_list: async ({ symbol }) => {
      const query = { symbol, limit: 5 };
      return outcome(await api().GET("/api/v3/trades", { params: { query } }), query);
    },
    historical_trades: async ({ symbol }) => {
      const query = { symbol, limit: 5, fromId: 0 };
      return outcome(await api().GET("/api/v3/historicalTrades", { params: { query } }), query);
    },
    aggTrades: async ({ symbol }) => {
      const query = { symbol, limit: 5 };
      return outcome(await api().GET("/api/v3/aggTrades", { params: { query } }), query);
    },
    current_average_price: async ({ symbol }) => {
      const query = { symbol };
      return outcome(await api().GET("/api/v3/avgPrice", { params: { query } }), query);
    },
    order_book_ticker: async ({ symbol }) => {
      const query = { symbol };
      return outcome(await api().GET("/api/v3/ticker/bookTicker", { params: { query } }), query);
    },
    symbol_price_ticker: async () => outcome(await api().GET("/api/v3/ticker/price"), {}),
    ticker_price_change_statistics24hr: async ({ symbol }) => {
      const query = { symbol };
      return outcome(await api().GET("/api/v3/ticker/24hr", { params: { query } }), query);
    },
    new_order: async ({ symbol }) => {
      const query = { symbol, ...RESTING_ORDER, newOrderRespType: "RESULT" as const };
      return outcome(await api().POST("/api/v3/order", { params: { query } }), query);
    },
    cancel_order: async ({ symbol, orderId }) => {
      const query = { symbol, orderId };
      return outcome(await api().DELETE("/api/v3/order", { params: { query } }), query);
    },
    cancel_all_orders: async ({ symbol }) => {
      const query = { symbol };
      return outcome(await api().DELETE("/api/v3/openOrders", { params: { query } }), query);
    },
    query_order: async ({ symbol, orderId }) => {
      const query = { symbol, orderId };
      return outcome(await api().GET("/api/v3/order", { params: { query } }), query);
    },
    open_orders: async ({ symbol }) => {
      const query = { symbol };
      return outcome(await api().GET("/api/v3/openOrders", { params: { query } }), query);
    },
    all_orders: async ({ symbol }) => {
      const query = { symbol, limit: 10 };
      return outcome(await api().GET("/api/v3/allOrders", { params: { query } }), query);
    },
  },
};
