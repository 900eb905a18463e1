import {
  badCombination,
  badPrecision,
  badStrategyType,
  illegalChars,
  invalidEnum,
  mandatoryMissing,
  newOrderRejected,
  notRequired,
  oneOfMissing,
  REJECT,
  timeInForceNotRequired,
} from "../errors.js";
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { SymbolConfig } from "./symbols.js";
import {
  isPricedType,
  isStopType,
  ORDER_TYPES,
  type OrderType,
  type SelfTradePreventionMode,
  SIDES,
  type Side,
  TIME_IN_FORCE,
  type TimeInForce,
} from "./types.js";

/** POST /api/v3/order parameters as they arrive on the wire (decimals stay strings). */
export interface NewOrderParams {
  symbol: string;
  side: Side;
  type: OrderType;
  timeInForce?: TimeInForce;
  quantity?: string;
  quoteOrderQty?: string;
  price?: string;
  newClientOrderId?: string;
  stopPrice?: string;
  trailingDelta?: number;
  icebergQty?: string;
  strategyId?: number;
  strategyType?: number;
  selfTradePreventionMode?: SelfTradePreventionMode;
}

/** A new-order request whose shape is valid for its type; filters are not checked yet. */
export interface OrderRequest {
  side: Side;
  type: OrderType;
  timeInForce: TimeInForce | undefined;
  quantity: Decimal | undefined;
  quoteOrderQty: Decimal | undefined;
  price: Decimal | undefined;
  stopPrice: Decimal | undefined;
  icebergQty: Decimal | undefined;
  trailingDelta: number | undefined;
  newClientOrderId: string | undefined;
  strategyId: number | undefined;
  strategyType: number | undefined;
}

/** The spec's ClientOrderId pattern (the live API's, which also allows ".", ":" and "/"). */
export const CLIENT_ORDER_ID_PATTERN = "^[.A-Z:/a-z0-9_-]{1,36}$";
const CLIENT_ORDER_ID = new RegExp(CLIENT_ORDER_ID_PATTERN);
const MIN_STRATEGY_TYPE = 1_000_000;

export function parseOrderRequest(params: NewOrderParams, config: SymbolConfig): OrderRequest {
  checkEnums(params);
  // The words as the engine's own constants, not the request's copies: an order keeps them for life.
  const request: OrderRequest = {
    side: interned(SIDES, params.side),
    type: interned(ORDER_TYPES, params.type),
    timeInForce: interned(TIME_IN_FORCE, present(params.timeInForce)),
    quantity: decimalParam("quantity", params.quantity),
    quoteOrderQty: decimalParam("quoteOrderQty", params.quoteOrderQty),
    price: decimalParam("price", params.price),
    stopPrice: decimalParam("stopPrice", params.stopPrice),
    icebergQty: decimalParam("icebergQty", params.icebergQty),
    trailingDelta: trailingDeltaParam(params.trailingDelta),
    newClientOrderId: clientOrderIdParam(present(params.newClientOrderId)),
    strategyId: params.strategyId,
    strategyType: params.strategyType,
  };
  checkPrecision(request, config);
  checkComposition(request);
  if (request.strategyType !== undefined && request.strategyType < MIN_STRATEGY_TYPE) throw badStrategyType();
  return request;
}

/** Symbol-level switches: trading status, allowed types, iceberg / quote-qty / trailing support. */
export function checkSymbolAllows(
  config: SymbolConfig,
  request: OrderRequest,
  stpMode: SelfTradePreventionMode | undefined,
): void {
  if (config.status !== "TRADING") throw newOrderRejected(REJECT.marketClosed);
  if (!config.orderTypes.includes(request.type)) throw newOrderRejected(unsupportedTypeMessage(request.type));
  if (request.quoteOrderQty !== undefined && !config.quoteOrderQtyMarketAllowed) {
    throw newOrderRejected(REJECT.quoteOrderQtyNotAllowed);
  }
  if (request.trailingDelta !== undefined && !config.allowTrailingStop) {
    throw newOrderRejected(REJECT.trailingNotAllowed);
  }
  checkIcebergAllowed(config, request);
  if (stpMode !== undefined && !config.allowedSelfTradePreventionModes.includes(stpMode)) {
    throw newOrderRejected(REJECT.unsupportedCombination);
  }
}

function checkIcebergAllowed(config: SymbolConfig, request: OrderRequest): void {
  if (request.icebergQty === undefined) return;
  if (!config.icebergAllowed) throw newOrderRejected(REJECT.icebergNotAllowed);
  if (request.type !== "LIMIT_MAKER" && request.timeInForce !== "GTC") {
    throw newOrderRejected(REJECT.unsupportedCombination);
  }
}

function unsupportedTypeMessage(type: OrderType): string {
  const words = type.toLowerCase().replace(/_/g, " ");
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} orders are not supported for this symbol.`;
}

// Empty strings count as "not sent", as they do on the wire.
function present<T extends string>(value: T | undefined): T | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** The list's own string equal to `value` (checkEnums has made sure there is one). */
function interned<T extends string, V extends T | undefined>(list: readonly T[], value: V): V {
  if (value === undefined) return value;
  for (const word of list) if (word === value) return word as V;
  return value;
}

function checkEnums(params: NewOrderParams): void {
  if (!(SIDES as readonly string[]).includes(params.side)) throw invalidEnum("side");
  if (!(ORDER_TYPES as readonly string[]).includes(params.type)) throw invalidEnum("type");
  const tif = present(params.timeInForce);
  if (tif !== undefined && !(TIME_IN_FORCE as readonly string[]).includes(tif))
    throw invalidEnum("timeInForce");
}

/** Texts of request decimals read before, with their values; at most MAX_KNOWN_DECIMALS, then afresh. */
const knownDecimals = new Map<string, Decimal>();
const MAX_KNOWN_DECIMALS = 4096;

/**
 * A request decimal's value. Orders repeat the same few prices and quantities, so a text read
 * before is looked up instead of matched and converted again, and its orders share one bigint
 * (a value, immutable) instead of keeping one each. Only valid texts are kept; a client sending
 * ever new texts makes the table start afresh, never grow.
 */
function decimalParam(name: string, text: string | undefined): Decimal | undefined {
  const value = present(text);
  if (value === undefined) return undefined;
  const known = knownDecimals.get(value);
  if (known !== undefined) return known;
  const parsed = dec.tryParse(value);
  if (parsed === undefined) throw illegalChars(name, dec.DECIMAL_PATTERN);
  if (knownDecimals.size >= MAX_KNOWN_DECIMALS) knownDecimals.clear();
  knownDecimals.set(value, parsed);
  return parsed;
}

function trailingDeltaParam(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) throw illegalChars("trailingDelta", "^[0-9]{1,20}$");
  return value;
}

function clientOrderIdParam(value: string | undefined): string | undefined {
  if (value !== undefined && !CLIENT_ORDER_ID.test(value)) {
    throw illegalChars("newClientOrderId", CLIENT_ORDER_ID_PATTERN);
  }
  return value;
}

function checkPrecision(request: OrderRequest, config: SymbolConfig): void {
  // In this order (the first failing one is named); straight calls, no table per order.
  checkDecimals("quantity", request.quantity, config.baseAssetPrecision);
  checkDecimals("quoteOrderQty", request.quoteOrderQty, config.quotePrecision);
  checkDecimals("icebergQty", request.icebergQty, config.baseAssetPrecision);
  checkDecimals("price", request.price, config.quotePrecision);
  checkDecimals("stopPrice", request.stopPrice, config.quotePrecision);
}

function checkDecimals(name: string, value: Decimal | undefined, decimals: number): void {
  if (value !== undefined && !dec.fitsDecimals(value, decimals)) throw badPrecision(name);
}

function needsTimeInForce(type: OrderType): boolean {
  return isPricedType(type) && type !== "LIMIT_MAKER";
}

function checkComposition(request: OrderRequest): void {
  checkTimeInForce(request);
  checkPrice(request);
  checkQuantity(request);
  checkStopParams(request);
  if (request.icebergQty !== undefined && !isPricedType(request.type)) throw notRequired("icebergQty");
}

function checkTimeInForce(request: OrderRequest): void {
  if (!needsTimeInForce(request.type)) {
    if (request.timeInForce !== undefined) throw timeInForceNotRequired();
  } else if (request.timeInForce === undefined) {
    throw mandatoryMissing("timeInForce");
  }
}

function checkPrice(request: OrderRequest): void {
  if (!isPricedType(request.type)) {
    if (request.price !== undefined) throw notRequired("price");
  } else if (request.price === undefined) {
    throw mandatoryMissing("price");
  }
}

function checkQuantity(request: OrderRequest): void {
  const { quantity, quoteOrderQty } = request;
  if (request.type !== "MARKET") {
    if (quantity === undefined) throw mandatoryMissing("quantity");
    if (quoteOrderQty !== undefined) throw notRequired("quoteOrderQty");
    return;
  }
  if (quantity === undefined && quoteOrderQty === undefined) throw oneOfMissing("quantity", "quoteOrderQty");
  if (quantity !== undefined && quoteOrderQty !== undefined) throw badCombination();
}

function checkStopParams(request: OrderRequest): void {
  if (isStopType(request.type)) {
    if (request.stopPrice === undefined && request.trailingDelta === undefined) {
      throw oneOfMissing("stopPrice", "trailingDelta");
    }
    return;
  }
  if (request.stopPrice !== undefined) throw notRequired("stopPrice");
  if (request.trailingDelta !== undefined) throw notRequired("trailingDelta");
}
