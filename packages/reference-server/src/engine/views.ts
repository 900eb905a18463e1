import * as dec from "./decimal.js";
import type { SymbolConfig } from "./symbols.js";
import {
  isStopType,
  type NewOrderRespType,
  type Order,
  type OrderStatus,
  type OrderType,
  type SelfTradePreventionMode,
  type Side,
  type TimeInForce,
  type Trade,
} from "./types.js";

/** Wire formatting of one symbol's numbers (fixed decimals, Binance style). */
export interface Formats {
  price(value: dec.Decimal): string;
  qty(value: dec.Decimal): string;
  quote(value: dec.Decimal): string;
  commission(value: dec.Decimal): string;
}

export function formatsFor(config: SymbolConfig): Formats {
  return {
    price: recentlyFormatted(config.quotePrecision),
    qty: recentlyFormatted(config.baseAssetPrecision),
    quote: recentlyFormatted(config.quoteAssetPrecision),
    commission: recentlyFormatted(Math.max(config.baseCommissionPrecision, config.quoteCommissionPrecision)),
  };
}

/** Values each formatter remembers. */
const REMEMBERED = 4;

/**
 * `dec.format` with `decimals`, remembering the last few values it formatted: an order's price and
 * quantity, its fills' and their commissions come back again and again (orders at the touch, the
 * same lot sizes), and a bigint compares for less than its division and digits cost. A value not
 * remembered costs REMEMBERED comparisons more.
 */
export function recentlyFormatted(decimals: number): (value: dec.Decimal) => string {
  const values: dec.Decimal[] = [];
  const texts: string[] = [];
  let next = 0;
  return (value) => {
    for (let i = 0; i < values.length; i += 1) if (values[i] === value) return texts[i] as string;
    const text = dec.format(value, decimals);
    values[next] = value;
    texts[next] = text;
    next = (next + 1) % REMEMBERED;
    return text;
  };
}

export interface FillResponse {
  price: string;
  qty: string;
  commission: string;
  commissionAsset: string;
  tradeId: number;
}

/** Fields that appear only when they apply (§7.4 conditional fields). */
export interface OrderExtras {
  stopPrice?: string;
  icebergQty?: string;
  trailingDelta?: number;
  trailingTime?: number;
  strategyId?: number;
  strategyType?: number;
}

export interface AckResponse {
  symbol: string;
  orderId: number;
  orderListId: number;
  clientOrderId: string;
  transactTime: number;
}

export interface ResultResponse extends AckResponse, OrderExtras {
  price: string;
  origQty: string;
  executedQty: string;
  origQuoteOrderQty: string;
  cummulativeQuoteQty: string;
  status: OrderStatus;
  timeInForce: TimeInForce;
  type: OrderType;
  side: Side;
  workingTime: number;
  selfTradePreventionMode: SelfTradePreventionMode;
}

export interface FullResponse extends ResultResponse {
  fills: FillResponse[];
}

export type NewOrderResponse = AckResponse | ResultResponse | FullResponse;

/** GET /api/v3/order, openOrders and allOrders items. */
export interface OrderResponse extends OrderExtras {
  symbol: string;
  orderId: number;
  orderListId: number;
  clientOrderId: string;
  price: string;
  origQty: string;
  executedQty: string;
  cummulativeQuoteQty: string;
  status: OrderStatus;
  timeInForce: TimeInForce;
  type: OrderType;
  side: Side;
  stopPrice: string;
  icebergQty: string;
  time: number;
  updateTime: number;
  isWorking: boolean;
  workingTime: number;
  origQuoteOrderQty: string;
  selfTradePreventionMode: SelfTradePreventionMode;
}

/** DELETE /api/v3/order and the items of DELETE /api/v3/openOrders. */
export interface CancelReport extends OrderExtras {
  symbol: string;
  origClientOrderId: string;
  orderId: number;
  orderListId: number;
  clientOrderId: string;
  transactTime: number;
  price: string;
  origQty: string;
  executedQty: string;
  origQuoteOrderQty: string;
  cummulativeQuoteQty: string;
  status: OrderStatus;
  timeInForce: TimeInForce;
  type: OrderType;
  side: Side;
  selfTradePreventionMode: SelfTradePreventionMode;
}

const NO_ORDER_LIST = -1;
const STP_MODE: SelfTradePreventionMode = "NONE";

/** Binance default: FULL for LIMIT and MARKET, ACK for every other type. */
export function defaultNewOrderRespType(type: OrderType): NewOrderRespType {
  return type === "LIMIT" || type === "MARKET" ? "FULL" : "ACK";
}

/** Cuts a FULL response down to the requested newOrderRespType. */
export function shapeNewOrderResponse(full: FullResponse, respType: NewOrderRespType): NewOrderResponse {
  if (respType === "FULL") return full;
  const { fills: _fills, ...result } = full;
  if (respType === "RESULT") return result;
  const { symbol, orderId, orderListId, clientOrderId, transactTime } = full;
  return { symbol, orderId, orderListId, clientOrderId, transactTime };
}

// Query responses always carry stopPrice and icebergQty; new-order and cancel responses only when they apply.
function extras(order: Order, f: Formats, withStopAndIceberg: boolean): OrderExtras {
  const out: OrderExtras = {};
  if (withStopAndIceberg && isStopType(order.type)) out.stopPrice = f.price(order.stopPrice);
  if (withStopAndIceberg && order.icebergQty > 0n) out.icebergQty = f.qty(order.icebergQty);
  if (order.trailing) {
    out.trailingDelta = order.trailing.delta;
    out.trailingTime = order.trailing.activeSince;
  }
  if (order.strategyId !== undefined) out.strategyId = order.strategyId;
  if (order.strategyType !== undefined) out.strategyType = order.strategyType;
  return out;
}

function amounts(order: Order, f: Formats) {
  return {
    price: f.price(order.price),
    origQty: f.qty(order.origQty),
    executedQty: f.qty(order.executedQty),
    origQuoteOrderQty: f.quote(order.origQuoteOrderQty),
    cummulativeQuoteQty: f.quote(order.cummulativeQuoteQty),
  };
}

export function fullResponse(
  order: Order,
  fills: FillResponse[],
  transactTime: number,
  f: Formats,
): FullResponse {
  // Built field by field, not spread from amounts() and extras(): this runs for every new order.
  const response: ResultResponse = {
    symbol: order.symbol,
    orderId: order.orderId,
    orderListId: NO_ORDER_LIST,
    clientOrderId: order.clientOrderId,
    transactTime,
    price: f.price(order.price),
    origQty: f.qty(order.origQty),
    executedQty: f.qty(order.executedQty),
    origQuoteOrderQty: f.quote(order.origQuoteOrderQty),
    cummulativeQuoteQty: f.quote(order.cummulativeQuoteQty),
    status: order.status,
    timeInForce: order.timeInForce,
    type: order.type,
    side: order.side,
    workingTime: order.workingTime,
    selfTradePreventionMode: STP_MODE,
  };
  if (hasExtras(order)) Object.assign(response, extras(order, f, true));
  (response as FullResponse).fills = fills;
  return response as FullResponse;
}

/** Whether `extras` would add anything (with stopPrice and icebergQty). */
function hasExtras(order: Order): boolean {
  return (
    isStopType(order.type) ||
    order.icebergQty > 0n ||
    Boolean(order.trailing) ||
    order.strategyId !== undefined ||
    order.strategyType !== undefined
  );
}

export function orderResponse(order: Order, f: Formats): OrderResponse {
  const a = amounts(order, f);
  return {
    symbol: order.symbol,
    orderId: order.orderId,
    orderListId: NO_ORDER_LIST,
    clientOrderId: order.clientOrderId,
    price: a.price,
    origQty: a.origQty,
    executedQty: a.executedQty,
    cummulativeQuoteQty: a.cummulativeQuoteQty,
    status: order.status,
    timeInForce: order.timeInForce,
    type: order.type,
    side: order.side,
    stopPrice: f.price(order.stopPrice),
    icebergQty: f.qty(order.icebergQty),
    time: order.time,
    updateTime: order.updateTime,
    isWorking: order.isWorking,
    workingTime: order.workingTime,
    origQuoteOrderQty: a.origQuoteOrderQty,
    selfTradePreventionMode: STP_MODE,
    ...extras(order, f, false),
  };
}

export function cancelReport(
  order: Order,
  cancelClientOrderId: string,
  transactTime: number,
  f: Formats,
): CancelReport {
  return {
    symbol: order.symbol,
    origClientOrderId: order.clientOrderId,
    orderId: order.orderId,
    orderListId: NO_ORDER_LIST,
    clientOrderId: cancelClientOrderId,
    transactTime,
    ...amounts(order, f),
    status: order.status,
    timeInForce: order.timeInForce,
    type: order.type,
    side: order.side,
    selfTradePreventionMode: STP_MODE,
    ...extras(order, f, true),
  };
}

/** The FULL-response fill of one trade, seen from the given order. */
export function fillResponse(trade: Trade, orderId: number, f: Formats): FillResponse {
  const party = trade.buyer.orderId === orderId ? trade.buyer : trade.seller;
  return {
    price: f.price(trade.price),
    qty: f.qty(trade.qty),
    commission: f.commission(party.commission),
    commissionAsset: party.commissionAsset,
    tradeId: trade.id,
  };
}
