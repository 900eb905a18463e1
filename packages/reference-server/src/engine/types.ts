import type { Decimal } from "./decimal.js";

export const SIDES = ["BUY", "SELL"] as const;
export type Side = (typeof SIDES)[number];

export const ORDER_TYPES = [
  "LIMIT",
  "MARKET",
  "STOP_LOSS",
  "STOP_LOSS_LIMIT",
  "TAKE_PROFIT",
  "TAKE_PROFIT_LIMIT",
  "LIMIT_MAKER",
] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const TIME_IN_FORCE = ["GTC", "IOC", "FOK"] as const;
export type TimeInForce = (typeof TIME_IN_FORCE)[number];

export const ORDER_STATUSES = [
  "NEW",
  "PENDING_NEW",
  "PARTIALLY_FILLED",
  "FILLED",
  "CANCELED",
  "PENDING_CANCEL",
  "REJECTED",
  "EXPIRED",
  "EXPIRED_IN_MATCH",
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export type NewOrderRespType = "ACK" | "RESULT" | "FULL";
export type SelfTradePreventionMode =
  | "NONE"
  | "EXPIRE_MAKER"
  | "EXPIRE_TAKER"
  | "EXPIRE_BOTH"
  | "DECREMENT"
  | "TRANSFER";
export type CancelRestrictions = "ONLY_NEW" | "ONLY_PARTIALLY_FILLED";
export type TickerType = "FULL" | "MINI";

/** Trailing-stop bookkeeping; `extreme` is the best price seen since activation. */
export interface TrailingState {
  delta: number;
  activeSince: number;
  extreme: Decimal | undefined;
}

/** One order as the engine keeps it. Zero means "not set" for price, stopPrice and icebergQty. */
export interface Order {
  accountId: string;
  symbol: string;
  orderId: number;
  clientOrderId: string;
  side: Side;
  type: OrderType;
  timeInForce: TimeInForce;
  price: Decimal;
  origQty: Decimal;
  origQuoteOrderQty: Decimal;
  executedQty: Decimal;
  cummulativeQuoteQty: Decimal;
  stopPrice: Decimal;
  icebergQty: Decimal;
  trailing: TrailingState | undefined;
  status: OrderStatus;
  isWorking: boolean;
  time: number;
  updateTime: number;
  workingTime: number;
  strategyId: number | undefined;
  strategyType: number | undefined;
  /** Amount of the spent asset (quote for BUY, base for SELL) still reserved for this order. */
  locked: Decimal;
  /** Time priority inside the book; assigned when the order starts resting. */
  bookSeq: number;
}

export interface TradeParty {
  accountId: string;
  orderId: number;
  commission: Decimal;
  commissionAsset: string;
}

export interface Trade {
  symbol: string;
  id: number;
  price: Decimal;
  qty: Decimal;
  quoteQty: Decimal;
  time: number;
  isBuyerMaker: boolean;
  buyer: TradeParty;
  seller: TradeParty;
}

export interface AggTrade {
  symbol: string;
  id: number;
  price: Decimal;
  qty: Decimal;
  firstTradeId: number;
  lastTradeId: number;
  time: number;
  isBuyerMaker: boolean;
  takerOrderId: number;
}

export const OPEN_STATUSES: ReadonlySet<OrderStatus> = new Set<OrderStatus>(["NEW", "PARTIALLY_FILLED"]);

export function isOpen(order: Order): boolean {
  return OPEN_STATUSES.has(order.status);
}

export function remainingQty(order: Order): Decimal {
  return order.origQty - order.executedQty;
}

const STOP_TYPES: ReadonlySet<OrderType> = new Set<OrderType>([
  "STOP_LOSS",
  "STOP_LOSS_LIMIT",
  "TAKE_PROFIT",
  "TAKE_PROFIT_LIMIT",
]);
const PRICED_TYPES: ReadonlySet<OrderType> = new Set<OrderType>([
  "LIMIT",
  "STOP_LOSS_LIMIT",
  "TAKE_PROFIT_LIMIT",
  "LIMIT_MAKER",
]);

/** STOP_LOSS* and TAKE_PROFIT* orders, which Binance calls "algo" orders. */
export function isStopType(type: OrderType): boolean {
  return STOP_TYPES.has(type);
}

/** Types that carry a limit price (and so may rest in the book and be icebergs). */
export function isPricedType(type: OrderType): boolean {
  return PRICED_TYPES.has(type);
}

/** Types that execute as a market order once working. */
export function isMarketLike(type: OrderType): boolean {
  return !isPricedType(type);
}

/**
 * Stops that must sit above the market and fire when the price rises to them
 * (STOP_LOSS BUY, TAKE_PROFIT SELL); the others sit below and fire on a fall.
 */
export function triggersOnRise(type: OrderType, side: Side): boolean {
  const stopLoss = type === "STOP_LOSS" || type === "STOP_LOSS_LIMIT";
  return stopLoss === (side === "BUY");
}

export function oppositeSide(side: Side): Side {
  return side === "BUY" ? "SELL" : "BUY";
}
