/**
 * The HTTP-free core of the marketapi reference server: exchange state and matching engine.
 *
 * Usage:
 *   const ex = createExchange({ now, seed, liquidity, maxOpenOrdersPerAccount, symbols, commission });
 *   ex.addAccount("alice", { USDT: "10000", BTC: "1" });
 *   const full = ex.newOrder("alice", { symbol: "BTCUSDT", side: "BUY", type: "LIMIT", ... });
 *   shapeNewOrderResponse(full, respType ?? defaultNewOrderRespType(type));
 *   ex.cancelOrder / cancelAllOrders / queryOrder / openOrders / allOrders / myTrades (per account)
 *   ex.depth / trades / historicalTrades / aggTrades / avgPrice / bookTicker / tickerPrice / ticker24hr
 *   History (every order, trade and aggregate trade) goes to `options.history`: a MemoryHistory
 *   by default, the SQLite state database in the server with `--state`. The engine keeps only live
 *   state in memory: books, open orders, balances, counters and bounded rolling statistics.
 * Inputs are wire values (decimal strings); outputs are wire-shaped objects. Failures throw
 * ApiError { code, msg, httpStatus } with Binance codes.
 *
 * Choices:
 * - Decimals are bigints scaled by 10^20 (exact for every valid wire value); output has the
 *   symbol's precision (8). Commission is 0.1 % maker and taker, taken from the received
 *   asset and truncated to 8 decimals; it accumulates in `feesCollected()`.
 * - Self-trade: STP mode NONE only; orders of one account may match each other.
 * - Reservations: LIMIT BUY locks price × qty, SELL locks qty. A MARKET order is first planned
 *   against the book; BUY locks exactly the planned cost, and a balance that cannot cover the
 *   plan is -2010. quoteOrderQty spends/receives at most that amount, rounded to LOT_SIZE
 *   stepSize; its origQty is the planned quantity; with no liquidity it is EXPIRED.
 * - Stops fire on the last trade price; they reserve like their limit/market counterpart (a BUY
 *   stop-market reserves qty × stopPrice and, once fired, may spend the whole free quote).
 *   Trailing: without stopPrice the order trails the last price from placement; with stopPrice
 *   trailing starts once the plain stop condition is met; SELL fires after a fall of
 *   trailingDelta bips from the high, BUY after a rise from the low.
 * - Icebergs show min(icebergQty, remaining) in depth, but their hidden part trades at the
 *   order's original time priority (no refresh to the back of the queue).
 * - Rejected orders throw and leave no order behind; REJECTED never appears in queries.
 * - Limits: MAX_NUM_ORDERS (200/symbol), MAX_NUM_ALGO_ORDERS (5/symbol) and an account-wide cap
 *   reported as "Filter failure: EXCHANGE_MAX_NUM_ORDERS". The seeded market maker is exempt.
 * - Times come from the injected clock but never go backwards between state changes.
 */

export { ApiError } from "../errors.js";
export type { AccountOptions } from "./accounts.js";
export { Account } from "./accounts.js";
export {
  CANDLE_LEVELS,
  type Candle,
  CandleFolder,
  type CandleReader,
  candleOfTrade,
  cutterFor,
  KLINE_INTERVALS,
  type KlineInterval,
  type KlineRow,
  type KlinesQuery,
  klines,
  levelOpen,
  mergeCandle,
  timeZoneOffset,
} from "./candles.js";
export { createExchange } from "./create.js";
export type { Decimal } from "./decimal.js";
export * as decimal from "./decimal.js";
export { ExchangeError } from "./deprecated.js";
export {
  type AccountInformation,
  type BalanceResponse,
  Exchange,
  type ExchangeFilter,
  type ExchangeOptions,
} from "./exchange.js";
export { type AccountTradesQuery, type History, MemoryHistory, PRUNED_CANDLE_LEVEL } from "./history.js";
export { stateFaults } from "./invariants.js";
export type { ChangeSet } from "./journal.js";
export {
  importLegacySnapshot,
  LEGACY_SNAPSHOT_FORMAT,
  type LegacySnapshot,
  legacySettings,
} from "./legacy-snapshot.js";
export { type LiquidityOptions, MARKET_MAKER_ID, seedLiquidity } from "./liquidity.js";
export type { Market } from "./market.js";
export type {
  AggTradeResponse,
  AvgPriceResponse,
  BookTickerResponse,
  DepthResponse,
  FullTickerResponse,
  MiniTickerResponse,
  PriceLevelTuple,
  PriceTickerResponse,
  TradeResponse,
} from "./market-data.js";
export type {
  AllOrdersQuery,
  CancelOrderParams,
  MyTradeResponse,
  MyTradesQuery,
  OrderLookup,
} from "./order-ops.js";
export type { PageQuery } from "./paging.js";
export { CLIENT_ORDER_ID_PATTERN, type NewOrderParams } from "./params.js";
export {
  type ExchangeState,
  initialState,
  type LiveSnapshot,
  registerOpenOrder,
  restoreBooks,
} from "./state.js";
export { type TradeBucket, type TradeReader, TradeStats, type TradeVolume } from "./stats.js";
export { DEFAULT_SYMBOLS, exchangeInfoSymbol, type SymbolConfig, type SymbolFilter } from "./symbols.js";
export type { AggTrade, Order, Trade } from "./types.js";
export {
  type CancelRestrictions,
  type NewOrderRespType,
  ORDER_TYPES,
  type OrderStatus,
  type OrderType,
  type SelfTradePreventionMode,
  SIDES,
  type Side,
  TIME_IN_FORCE,
  type TickerType,
  type TimeInForce,
} from "./types.js";
export {
  type AckResponse,
  type CancelReport,
  defaultNewOrderRespType,
  type FillResponse,
  type FullResponse,
  type NewOrderResponse,
  type OrderResponse,
  type ResultResponse,
  shapeNewOrderResponse,
} from "./views.js";
