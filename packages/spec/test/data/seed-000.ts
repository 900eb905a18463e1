// The tables of the source document of the trading API (shared/seeds/000_...), transcribed once.
// The fidelity test compares specs/spot-api.openapi.yaml against this data and nothing else.

export type SeedType = "string" | "integer" | "float" | "date_time" | "array of string";
export type AuthClass = "none" | "market_data" | "trade" | "user_data";

export interface SeedParameter {
  name: string;
  type: SeedType;
  required: boolean;
  /** The declared default; undefined where the seed declares none. */
  default?: string | number;
}

export interface SeedOperation {
  operationId: string;
  method: "get" | "post" | "delete";
  path: string;
  auth: AuthClass;
  parameters: SeedParameter[];
}

const symbolRequired: SeedParameter = { name: "symbol", type: "string", required: true };
const symbolOptional: SeedParameter = { name: "symbol", type: "string", required: false };

export const seedOperations: SeedOperation[] = [
  { operationId: "ping", method: "get", path: "/api/v3/ping", auth: "none", parameters: [] },
  { operationId: "server_time", method: "get", path: "/api/v3/time", auth: "none", parameters: [] },
  {
    operationId: "exchange_info",
    method: "get",
    path: "/api/v3/exchangeInfo",
    auth: "none",
    parameters: [symbolOptional, { name: "symbols", type: "array of string", required: false }],
  },
  {
    operationId: "order_book",
    method: "get",
    path: "/api/v3/depth",
    auth: "none",
    parameters: [symbolRequired, { name: "limit", type: "integer", required: false, default: 100 }],
  },
  {
    operationId: "recent_trades_list",
    method: "get",
    path: "/api/v3/trades",
    auth: "market_data",
    parameters: [symbolRequired, { name: "limit", type: "integer", required: false }],
  },
  {
    operationId: "historical_trades",
    method: "get",
    path: "/api/v3/historicalTrades",
    auth: "market_data",
    parameters: [
      symbolRequired,
      { name: "limit", type: "integer", required: false, default: 500 },
      { name: "fromId", type: "integer", required: false },
    ],
  },
  {
    operationId: "aggTrades",
    method: "get",
    path: "/api/v3/aggTrades",
    auth: "none",
    parameters: [
      symbolRequired,
      { name: "fromId", type: "integer", required: false },
      { name: "startTime", type: "date_time", required: false },
      { name: "endTime", type: "date_time", required: false },
      { name: "limit", type: "integer", required: false, default: 1000 },
    ],
  },
  {
    operationId: "current_average_price",
    method: "get",
    path: "/api/v3/avgPrice",
    auth: "none",
    parameters: [symbolRequired],
  },
  {
    operationId: "order_book_ticker",
    method: "get",
    path: "/api/v3/ticker/bookTicker",
    auth: "none",
    parameters: [symbolOptional],
  },
  {
    operationId: "symbol_price_ticker",
    method: "get",
    path: "/api/v3/ticker/price",
    auth: "none",
    parameters: [symbolOptional],
  },
  {
    operationId: "ticker_price_change_statistics24hr",
    method: "get",
    path: "/api/v3/ticker/24hr",
    auth: "none",
    parameters: [symbolOptional],
  },
  {
    operationId: "new_order",
    method: "post",
    path: "/api/v3/order",
    auth: "trade",
    parameters: [
      symbolRequired,
      { name: "side", type: "string", required: true },
      { name: "type", type: "string", required: true },
      { name: "timeInForce", type: "string", required: false },
      { name: "quantity", type: "float", required: false },
      { name: "quoteOrderQty", type: "float", required: false },
      { name: "price", type: "float", required: false },
      { name: "newClientOrderId", type: "string", required: false },
      { name: "stopPrice", type: "float", required: false },
      { name: "trailingDelta", type: "float", required: false },
      { name: "icebergQty", type: "float", required: false },
      { name: "newOrderRespType", type: "string", required: false, default: "FULL" },
      { name: "recvWindow", type: "integer", required: false },
    ],
  },
  {
    operationId: "cancel_order",
    method: "delete",
    path: "/api/v3/order",
    auth: "trade",
    parameters: [
      symbolRequired,
      { name: "orderId", type: "integer", required: false },
      { name: "origClientOrderId", type: "string", required: false },
      { name: "newClientOrderId", type: "string", required: false },
    ],
  },
  {
    operationId: "cancel_all_orders",
    method: "delete",
    path: "/api/v3/openOrders",
    auth: "trade",
    parameters: [symbolRequired],
  },
  {
    operationId: "query_order",
    method: "get",
    path: "/api/v3/order",
    auth: "user_data",
    parameters: [
      symbolRequired,
      { name: "orderId", type: "integer", required: false },
      { name: "origClientOrderId", type: "string", required: false },
    ],
  },
  {
    operationId: "open_orders",
    method: "get",
    path: "/api/v3/openOrders",
    auth: "user_data",
    parameters: [symbolOptional],
  },
  {
    operationId: "all_orders",
    method: "get",
    path: "/api/v3/allOrders",
    auth: "user_data",
    parameters: [
      symbolRequired,
      { name: "orderId", type: "integer", required: false },
      { name: "startTime", type: "integer", required: false },
      { name: "endTime", type: "integer", required: false },
      { name: "limit", type: "integer", required: false },
    ],
  },
];

/** Section 5: the operations of each authentication class. */
export const seedAuthClasses: Record<AuthClass, string[]> = {
  none: [
    "ping",
    "server_time",
    "exchange_info",
    "order_book",
    "aggTrades",
    "current_average_price",
    "order_book_ticker",
    "symbol_price_ticker",
    "ticker_price_change_statistics24hr",
  ],
  market_data: ["recent_trades_list", "historical_trades"],
  trade: ["new_order", "cancel_order", "cancel_all_orders"],
  user_data: ["query_order", "open_orders", "all_orders"],
};
