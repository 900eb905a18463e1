/**
 * What the tester learns from exchangeInfo and the tickers: which symbols exist, their filters,
 * and a LIMIT BUY far below the market that every filter accepts and that will not fill.
 */
import {
  ceilToStep,
  type Dec,
  div,
  formatDec,
  fromRatio,
  maxDec,
  mul,
  parseDec,
  tryParseDec,
  unitOf,
  ZERO,
} from "../core/decimal.js";

export type Json = Record<string, unknown>;

export interface SymbolRules {
  symbol: string;
  status: string;
  orderTypes: string[];
  tick: Dec;
  minPrice: Dec;
  maxPrice: Dec;
  step: Dec;
  minQty: Dec;
  maxQty: Dec;
  minNotional: Dec;
  maxNotional: Dec;
  /** The lowest multiplier of the average price a BUY may have (PERCENT_PRICE filters). */
  bidMultiplierDown: Dec | undefined;
  /** The symbol's exchangeInfo entry as the target sent it (flags and filters the fields above do not name). */
  info: Json;
}

export interface Market {
  symbols: SymbolRules[];
  /** REQUEST_WEIGHT per minute. */
  weightLimit: number | undefined;
}

function dec(value: unknown, fallback: Dec = ZERO): Dec {
  return tryParseDec(value) ?? fallback;
}

function rulesOf(info: Json): SymbolRules {
  const filters = Array.isArray(info.filters) ? (info.filters as Json[]) : [];
  const find = (type: string) => filters.find((f) => f && f.filterType === type);
  const price = find("PRICE_FILTER");
  const lot = find("LOT_SIZE");
  const notional = find("NOTIONAL") ?? find("MIN_NOTIONAL");
  const percent = find("PERCENT_PRICE");
  const bySide = find("PERCENT_PRICE_BY_SIDE");
  const quotePrecision = typeof info.quoteAssetPrecision === "number" ? info.quoteAssetPrecision : 8;
  const basePrecision = typeof info.baseAssetPrecision === "number" ? info.baseAssetPrecision : 8;
  const tick = dec(price?.tickSize);
  const step = dec(lot?.stepSize);
  return {
    symbol: String(info.symbol),
    status: String(info.status ?? "TRADING"),
    orderTypes: Array.isArray(info.orderTypes) ? info.orderTypes.map(String) : [],
    tick: tick > ZERO ? tick : unitOf(quotePrecision),
    minPrice: dec(price?.minPrice),
    maxPrice: dec(price?.maxPrice),
    step: step > ZERO ? step : unitOf(basePrecision),
    minQty: dec(lot?.minQty),
    maxQty: dec(lot?.maxQty),
    minNotional: dec(notional?.minNotional),
    maxNotional: dec(notional?.maxNotional),
    bidMultiplierDown: tryParseDec(bySide?.bidMultiplierDown) ?? tryParseDec(percent?.multiplierDown),
    info,
  };
}

/** Reads an exchangeInfo body as far as it is usable (a malformed one yields no symbols). */
export function readExchangeInfo(body: unknown): Market {
  const info = (typeof body === "object" && body !== null ? body : {}) as Json;
  const symbols = Array.isArray(info.symbols)
    ? (info.symbols as unknown[])
        .filter(
          (s): s is Json => typeof s === "object" && s !== null && typeof (s as Json).symbol === "string",
        )
        .map(rulesOf)
    : [];
  const limits = Array.isArray(info.rateLimits) ? (info.rateLimits as Json[]) : [];
  const weight = limits.find((l) => l?.rateLimitType === "REQUEST_WEIGHT" && l.interval === "MINUTE");
  const weightLimit =
    weight &&
    typeof weight.limit === "number" &&
    typeof weight.intervalNum === "number" &&
    weight.intervalNum > 0
      ? weight.limit / weight.intervalNum
      : undefined;
  return { symbols, weightLimit };
}

/** The symbol to test with: the preferred one (the spec's example) when it trades, else the first trading one. */
export function pickSymbol(market: Market, preferred: string | undefined): SymbolRules | undefined {
  const trading = market.symbols.filter((s) => s.status === "TRADING");
  return trading.find((s) => s.symbol === preferred) ?? trading[0] ?? market.symbols[0];
}

export interface FarBuy {
  price: string;
  quantity: string;
}

/** The best bid, last price or average price in a ticker-like body. */
export function referencePriceOf(body: unknown): Dec | undefined {
  const item = Array.isArray(body) ? body[0] : body;
  if (typeof item !== "object" || item === null) return undefined;
  const o = item as Json;
  for (const key of ["bidPrice", "price", "lastPrice"]) {
    const value = tryParseDec(o[key]);
    if (value !== undefined && value > ZERO) return value;
  }
  return undefined;
}

/**
 * A LIMIT BUY at about a fifth of the market price (never below what PRICE_FILTER and the
 * percent-price filters allow), for the smallest quantity LOT_SIZE and NOTIONAL accept. Such
 * an order rests on the book without filling.
 */
export function planFarBuy(rules: SymbolRules, reference: Dec): FarBuy | { reason: string } {
  if (!rules.orderTypes.includes("LIMIT") && rules.orderTypes.length > 0) {
    return { reason: `${rules.symbol} does not accept LIMIT orders` };
  }
  const lowest = maxDec(
    mul(reference, fromRatio(1, 5)),
    rules.minPrice,
    rules.bidMultiplierDown !== undefined
      ? mul(mul(reference, rules.bidMultiplierDown), fromRatio(11, 10))
      : ZERO,
  );
  const price = ceilToStep(lowest, rules.tick);
  if (price >= mul(reference, fromRatio(9, 10))) {
    return {
      reason: `${rules.symbol}: the lowest price the filters allow (${formatDec(price)}) is within 10 % of the market (${formatDec(reference)})`,
    };
  }
  if (rules.maxPrice > ZERO && price > rules.maxPrice) {
    return {
      reason: `${rules.symbol}: no far-from-market price below maxPrice ${formatDec(rules.maxPrice)}`,
    };
  }
  const forNotional = rules.minNotional > ZERO ? div(mul(rules.minNotional, fromRatio(11, 10)), price) : ZERO;
  const quantity = ceilToStep(maxDec(rules.minQty, forNotional, rules.step), rules.step);
  if (rules.maxQty > ZERO && quantity > rules.maxQty) {
    return {
      reason: `${rules.symbol}: the minimum notional needs more than maxQty ${formatDec(rules.maxQty)}`,
    };
  }
  if (rules.maxNotional > ZERO && mul(price, quantity) > rules.maxNotional) {
    return { reason: `${rules.symbol}: the smallest order exceeds maxNotional` };
  }
  return { price: formatDec(price), quantity: formatDec(quantity) };
}

export { parseDec };
