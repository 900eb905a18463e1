// What a driver is: one function per operation of the spec, calling it through one generated
// client, plus the workarounds it needed, declared as data (docs/compatibility.md is rendered
// from them and the suite proves each by running it).
import type { GeneratorId } from "../tools.js";

/** The operations of the spec (test/compatibility-doc.test.ts holds the list to the spec). */
export const OPERATION_IDS = [
  "ping",
  "server_time",
  "exchange_info",
  "order_book",
  "recent_trades_list",
  "historical_trades",
  "aggTrades",
  "current_average_price",
  "order_book_ticker",
  "symbol_price_ticker",
  "ticker_price_change_statistics24hr",
  "new_order",
  "cancel_order",
  "cancel_all_orders",
  "query_order",
  "open_orders",
  "all_orders",
] as const;

export type OperationId = (typeof OPERATION_IDS)[number];

/** What a call gives back: the status, the parsed body and the parameters it sent (query and body). */
export interface CallOutcome {
  status: number;
  body: unknown;
  sent: Record<string, unknown>;
}

/** What the calls share: the server, the credentials, and the order the suite works on. */
export interface CallContext {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  symbol: string;
  /** The id of the resting order new_order placed, for query_order and cancel_order. */
  orderId?: number;
}

/** A construct a generator cannot express, and the smallest code that makes the call right. */
export interface Workaround {
  /** Short key, shown in the table: "symbols", "signing". */
  key: string;
  /** The construct and what the generator does with it. */
  problem: string;
  /** What the driver does instead. */
  fix: string;
  operations: readonly OperationId[] | "all";
}

export interface Driver {
  generator: GeneratorId;
  /** Points the generated client at a server (base URL, credentials, middleware). */
  connect(context: CallContext): void;
  calls: Record<OperationId, (context: CallContext) => Promise<CallOutcome>>;
  workarounds: readonly Workaround[];
}

/** The operations that take the signature: trade and user_data. */
export const SIGNED: readonly OperationId[] = [
  "new_order",
  "cancel_order",
  "cancel_all_orders",
  "query_order",
  "open_orders",
  "all_orders",
];

/** A LIMIT BUY far below the market, so it rests on the book until it is cancelled. */
export const RESTING_ORDER = {
  side: "BUY",
  type: "LIMIT",
  timeInForce: "GTC",
  quantity: 0.001,
  price: 30000,
} as const;
