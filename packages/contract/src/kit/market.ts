/**
 * The market as exchangeInfo and the tickers announce it, and the sizing rules of every order the
 * run places, each stated once:
 *
 * - the one reader of a symbol's filters and flags (SymbolRules: PRICE_FILTER, LOT_SIZE, NOTIONAL
 *   or MIN_NOTIONAL, PERCENT_PRICE and PERCENT_PRICE_BY_SIDE, ICEBERG_PARTS, TRAILING_DELTA,
 *   MAX_NUM_ORDERS, MAX_NUM_ALGO_ORDERS; the assets' precisions; icebergs, quote-quantity market
 *   orders, trailing stops, self-trade prevention);
 * - the notional margin: an order is sized 10 % above the minimum notional, so that rounding to
 *   the tick and the step never takes it below;
 * - the smallest quantity every filter accepts at a price;
 * - the far price: a fifth (BUY) or five times (SELL) the market, inside the price filters with a
 *   margin, and at least 10 % away from the market, where an order rests without trading.
 */
import {
  ceilToStep,
  type Dec,
  div,
  floorToStep,
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
export type Side = "BUY" | "SELL";

/** TRAILING_DELTA's bounds, in basis points. */
export interface TrailingDeltaBounds {
  minAbove: number | undefined;
  maxAbove: number | undefined;
  minBelow: number | undefined;
  maxBelow: number | undefined;
}

export interface SymbolRules {
  symbol: string;
  status: string;
  baseAsset: string | undefined;
  quoteAsset: string | undefined;
  orderTypes: string[];
  tick: Dec;
  minPrice: Dec;
  maxPrice: Dec;
  step: Dec;
  minQty: Dec;
  maxQty: Dec;
  /** MARKET_LOT_SIZE: a MARKET order's own quantity bounds and step (zero where not announced). */
  marketMinQty: Dec;
  marketMaxQty: Dec;
  marketStep: Dec;
  minNotional: Dec;
  maxNotional: Dec;
  /** The lowest multiplier of the average price a BUY may have (PERCENT_PRICE filters). */
  bidMultiplierDown: Dec | undefined;
  /** The highest multiplier of the average price a SELL may have (PERCENT_PRICE filters). */
  askMultiplierUp: Dec | undefined;
  /** ICEBERG_PARTS limit, MAX_NUM_ALGO_ORDERS, MAX_NUM_ORDERS, when announced. */
  icebergParts: number | undefined;
  maxAlgoOrders: number | undefined;
  maxOrders: number | undefined;
  trailingDelta: TrailingDeltaBounds | undefined;
  /** Decimals of the quote and base assets (8 when not announced). */
  quotePrecision: number;
  basePrecision: number;
  icebergAllowed: boolean;
  quoteOrderQtyAllowed: boolean;
  trailingStopAllowed: boolean;
  /** The self-trade prevention mode of an order placed without one, when announced. */
  defaultSelfTradePreventionMode: string | undefined;
  /** Orders of one account may trade with each other (no self-trade prevention by default). */
  selfTradeAllowed: boolean;
  /** The symbol's exchangeInfo entry as the target sent it. */
  info: Json;
}

export interface Market {
  symbols: SymbolRules[];
  /** REQUEST_WEIGHT per minute. */
  weightLimit: number | undefined;
  /** exchangeInfo's rateLimits as sent (the pacer reads them). */
  rateLimits: Json[];
}

/** Orders are sized this much above the minimum notional (rounding never takes them below it). */
export const NOTIONAL_MARGIN: Dec = fromRatio(11, 10);
/** A far order is placed at most this share of the market (BUY) ... */
const FAR_BELOW: Dec = fromRatio(1, 5);
/** ... or at least this multiple of it (SELL). */
const FAR_ABOVE: Dec = fromRatio(5, 1);
/** The percent-price multipliers are kept this much inside their bound. */
const PERCENT_INSIDE_BUY: Dec = fromRatio(11, 10);
const PERCENT_INSIDE_SELL: Dec = fromRatio(9, 10);
/** A far price is at least 10 % away from the market. */
const AWAY_BELOW: Dec = fromRatio(9, 10);
const AWAY_ABOVE: Dec = fromRatio(11, 10);

function dec(value: unknown, fallback: Dec = ZERO): Dec {
  return tryParseDec(value) ?? fallback;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

function integer(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}

/** A symbol of the right format that no exchange lists. */
export function unknownSymbol(listed: readonly string[]): string {
  let symbol = "ZZQXUNKNOWN";
  while (listed.includes(symbol)) symbol += "Z";
  return symbol;
}

/** The filter of a type in a symbol's exchangeInfo entry. */
export function filterOf(info: Json, type: string): Json | undefined {
  const filters = Array.isArray(info.filters) ? (info.filters as unknown[]) : [];
  return filters.find(
    (f): f is Json => typeof f === "object" && f !== null && (f as Json).filterType === type,
  );
}

/** A symbol's rules, from its exchangeInfo entry as far as it is readable. */
export function rulesOf(info: Json): SymbolRules {
  const price = filterOf(info, "PRICE_FILTER");
  const lot = filterOf(info, "LOT_SIZE");
  const marketLot = filterOf(info, "MARKET_LOT_SIZE");
  const notional = filterOf(info, "NOTIONAL") ?? filterOf(info, "MIN_NOTIONAL");
  const percent = filterOf(info, "PERCENT_PRICE");
  const bySide = filterOf(info, "PERCENT_PRICE_BY_SIDE");
  const trailing = filterOf(info, "TRAILING_DELTA");
  const quotePrecision = integer(info.quoteAssetPrecision) ?? 8;
  const basePrecision = integer(info.baseAssetPrecision) ?? 8;
  const tick = dec(price?.tickSize);
  const step = dec(lot?.stepSize);
  const stp =
    typeof info.defaultSelfTradePreventionMode === "string" ? info.defaultSelfTradePreventionMode : undefined;
  return {
    symbol: String(info.symbol),
    status: String(info.status ?? TRADING_STATUS),
    baseAsset: typeof info.baseAsset === "string" ? info.baseAsset : undefined,
    quoteAsset: typeof info.quoteAsset === "string" ? info.quoteAsset : undefined,
    orderTypes: Array.isArray(info.orderTypes) ? info.orderTypes.map(String) : [],
    tick: tick > ZERO ? tick : unitOf(quotePrecision),
    minPrice: dec(price?.minPrice),
    maxPrice: dec(price?.maxPrice),
    step: step > ZERO ? step : unitOf(basePrecision),
    minQty: dec(lot?.minQty),
    maxQty: dec(lot?.maxQty),
    marketMinQty: dec(marketLot?.minQty),
    marketMaxQty: dec(marketLot?.maxQty),
    marketStep: dec(marketLot?.stepSize),
    minNotional: dec(notional?.minNotional),
    maxNotional: dec(notional?.maxNotional),
    bidMultiplierDown: tryParseDec(bySide?.bidMultiplierDown) ?? tryParseDec(percent?.multiplierDown),
    askMultiplierUp: tryParseDec(bySide?.askMultiplierUp) ?? tryParseDec(percent?.multiplierUp),
    icebergParts: positiveInteger(filterOf(info, "ICEBERG_PARTS")?.limit),
    maxAlgoOrders: positiveInteger(filterOf(info, "MAX_NUM_ALGO_ORDERS")?.maxNumAlgoOrders),
    maxOrders: positiveInteger(filterOf(info, "MAX_NUM_ORDERS")?.maxNumOrders),
    trailingDelta: trailing
      ? {
          minAbove: integer(trailing.minTrailingAboveDelta),
          maxAbove: integer(trailing.maxTrailingAboveDelta),
          minBelow: integer(trailing.minTrailingBelowDelta),
          maxBelow: integer(trailing.maxTrailingBelowDelta),
        }
      : undefined,
    quotePrecision,
    basePrecision,
    icebergAllowed: info.icebergAllowed !== false,
    quoteOrderQtyAllowed: info.quoteOrderQtyMarketAllowed !== false,
    trailingStopAllowed: info.allowTrailingStop !== false,
    defaultSelfTradePreventionMode: stp,
    selfTradeAllowed: stp === undefined || stp === "NONE",
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
  const rateLimits = Array.isArray(info.rateLimits)
    ? (info.rateLimits as unknown[]).filter((l): l is Json => typeof l === "object" && l !== null)
    : [];
  const weight = rateLimits.find((l) => l.rateLimitType === "REQUEST_WEIGHT" && l.interval === "MINUTE");
  const weightLimit =
    weight &&
    typeof weight.limit === "number" &&
    typeof weight.intervalNum === "number" &&
    weight.intervalNum > 0
      ? weight.limit / weight.intervalNum
      : undefined;
  return { symbols, weightLimit, rateLimits };
}

/** The symbol to test with first: the preferred one (the spec's example) when it trades, else the first trading one. */
/** The rules exchangeInfo gave `symbol`, when it lists it. */
export function rulesFor(market: Market, symbol: string | undefined): SymbolRules | undefined {
  return market.symbols.find((rules) => rules.symbol === symbol);
}

export function pickSymbol(market: Market, preferred: string | undefined): SymbolRules | undefined {
  const trading = market.symbols.filter(takesOrders);
  return trading.find((s) => s.symbol === preferred) ?? trading[0] ?? market.symbols[0];
}

/** The one symbol status under which a symbol takes new orders (SymbolStatus in the spec). */
export const TRADING_STATUS = "TRADING";

/** Whether exchangeInfo lists the symbol as taking new orders. */
export function takesOrders(rules: Pick<SymbolRules, "status">): boolean {
  return rules.status === TRADING_STATUS;
}

/** Symbols listed as not trading that the run tries one far order on (every_symbol), at most. */
const NOT_TRADING_PROBED = 2;

/**
 * The symbols exchangeInfo lists with a status other than TRADING that the run sends one far
 * order to (it must be refused), the first NOT_TRADING_PROBED in the listing's order.
 */
export function notTradingToProbe(market: Market): SymbolRules[] {
  return market.symbols.filter((s) => !takesOrders(s)).slice(0, NOT_TRADING_PROBED);
}

/**
 * The symbols the run trades: the first (`pickSymbol`), then the other trading symbols, those
 * whose filters differ from every one already chosen first (a second symbol with the same tick,
 * step and minimum notional finds fewer faults), up to `max`.
 */
export function chooseSymbols(market: Market, preferred: string | undefined, max: number): SymbolRules[] {
  const first = pickSymbol(market, preferred);
  if (!first) return [];
  const chosen = [first];
  const rest = market.symbols.filter((s) => takesOrders(s) && s !== first);
  const shape = (r: SymbolRules) => `${r.tick}/${r.step}/${r.minNotional}`;
  while (chosen.length < max && rest.length > 0) {
    const seen = new Set(chosen.map(shape));
    const index = Math.max(
      0,
      rest.findIndex((r) => !seen.has(shape(r))),
    );
    chosen.push(...rest.splice(index, 1));
  }
  return chosen;
}

/** What the run trades on one symbol: its rules, its market price, and the far order it rests. */
export interface SymbolPlan {
  rules: SymbolRules;
  reference: Dec | undefined;
  farBuy: FarBuy | { reason: string };
}

export function planSymbol(rules: SymbolRules, reference: Dec | undefined): SymbolPlan {
  return {
    rules,
    reference,
    farBuy:
      reference !== undefined
        ? planFarBuy(rules, reference)
        : { reason: `no market price for ${rules.symbol}` },
  };
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

/** The minimum notional with the run's margin (what its orders are sized to meet). */
export function notionalWithMargin(rules: SymbolRules): Dec {
  return mul(rules.minNotional, NOTIONAL_MARGIN);
}

/** The smallest quantity on the step, at least minQty, whose value at `price` reaches `notional` (no margin). */
export function quantityFor(rules: SymbolRules, price: Dec, notional: Dec): Dec {
  return ceilToStep(
    maxDec(rules.minQty, rules.step, notional > ZERO && price > ZERO ? div(notional, price) : ZERO),
    rules.step,
  );
}

/**
 * The smallest MARKET order at about `reference`: its notional is taken at prices the run does not
 * know in advance (the fills'), so it carries twice the margin.
 */
export function smallestMarketQuantity(rules: SymbolRules, reference: Dec): Dec {
  const sized = quantityFor(rules, reference, mul(notionalWithMargin(rules), NOTIONAL_MARGIN));
  // MARKET_LOT_SIZE bounds a MARKET order besides LOT_SIZE.
  const atLeast = rules.marketMinQty > sized ? ceilToStep(rules.marketMinQty, rules.step) : sized;
  return rules.marketStep > ZERO ? ceilToStep(atLeast, rules.marketStep) : atLeast;
}

/**
 * Whether the filters must accept an offsetting order of `executed`, the fill of an order the run
 * sized at `sized`: a full fill is as sure as the order was; a part fill (others' orders took the
 * rest of the level) only when it still reaches the smallest quantity at `reference`.
 */
export function offsetIsSure(rules: SymbolRules, executed: Dec, sized: Dec, reference: Dec): boolean {
  return executed >= sized || executed >= smallestQuantity(rules, reference);
}

/** The smallest quantity every filter accepts at `price`: LOT_SIZE, and NOTIONAL with the margin. */
export function smallestQuantity(rules: SymbolRules, price: Dec): Dec {
  return quantityFor(rules, price, notionalWithMargin(rules));
}

/**
 * A price a fifth (BUY) or five times (SELL) the market, kept inside PRICE_FILTER and the
 * percent-price filters with a margin; undefined when the filters leave no price at least 10 %
 * away from the market.
 */
export function farPrice(rules: SymbolRules, reference: Dec, side: Side): Dec | undefined {
  if (side === "BUY") {
    const down = rules.bidMultiplierDown;
    const lowest = maxDec(
      mul(reference, FAR_BELOW),
      rules.minPrice,
      rules.tick,
      down !== undefined ? mul(mul(reference, down), PERCENT_INSIDE_BUY) : ZERO,
    );
    const price = ceilToStep(lowest, rules.tick);
    return price < mul(reference, AWAY_BELOW) ? price : undefined;
  }
  let highest = mul(reference, FAR_ABOVE);
  if (rules.maxPrice > ZERO && rules.maxPrice < highest) highest = rules.maxPrice;
  const up = rules.askMultiplierUp;
  if (up !== undefined) {
    const allowed = mul(mul(reference, up), PERCENT_INSIDE_SELL);
    if (allowed < highest) highest = allowed;
  }
  const price = floorToStep(highest, rules.tick);
  return price > mul(reference, AWAY_ABOVE) ? price : undefined;
}

/** Whether `price` is a far price on its side: at least 10 % away from `reference`. */
export function isFarFrom(reference: Dec, price: Dec, side: Side): boolean {
  return side === "BUY" ? price < mul(reference, AWAY_BELOW) : price > mul(reference, AWAY_ABOVE);
}

export interface FarBuy {
  symbol: string;
  price: string;
  quantity: string;
}

/** The new_order fields of a far buy: a LIMIT GTC BUY at its price and quantity. */
export function farBuyOrder(far: FarBuy): { [field: string]: string } {
  return {
    symbol: far.symbol,
    side: "BUY",
    type: "LIMIT",
    timeInForce: "GTC",
    price: far.price,
    quantity: far.quantity,
  };
}

/**
 * A LIMIT BUY at the far price, for the smallest quantity LOT_SIZE and NOTIONAL accept there:
 * an order that rests on the book without filling.
 */
export function planFarBuy(rules: SymbolRules, reference: Dec): FarBuy | { reason: string } {
  if (!rules.orderTypes.includes("LIMIT") && rules.orderTypes.length > 0) {
    return { reason: `${rules.symbol} does not accept LIMIT orders` };
  }
  const price = farPrice(rules, reference, "BUY");
  if (price === undefined) {
    return {
      reason: `${rules.symbol}: the lowest price the filters allow is within 10 % of the market (${formatDec(reference)})`,
    };
  }
  if (rules.maxPrice > ZERO && price > rules.maxPrice) {
    return {
      reason: `${rules.symbol}: no far-from-market price below maxPrice ${formatDec(rules.maxPrice)}`,
    };
  }
  const quantity = smallestQuantity(rules, price);
  if (rules.maxQty > ZERO && quantity > rules.maxQty) {
    return {
      reason: `${rules.symbol}: the minimum notional needs more than maxQty ${formatDec(rules.maxQty)}`,
    };
  }
  if (rules.maxNotional > ZERO && mul(price, quantity) > rules.maxNotional) {
    return { reason: `${rules.symbol}: the smallest order exceeds maxNotional` };
  }
  return { symbol: rules.symbol, price: formatDec(price), quantity: formatDec(quantity) };
}

/** The price to trade at when the target shows none: where the smallest quantity meets the minimum notional. */
export function noPriceFallback(rules: SymbolRules): Dec {
  const floor = maxDec(rules.minPrice, rules.tick);
  const quantity = maxDec(rules.minQty, rules.step);
  const forNotional = rules.minNotional > ZERO ? div(notionalWithMargin(rules), quantity) : floor;
  const price = ceilToStep(maxDec(floor, forNotional), rules.tick);
  return rules.maxPrice > ZERO && price > rules.maxPrice ? rules.maxPrice : price;
}

/** Quantities tried by quantityForExactAverage: the run's own trade stays within this many steps. */
export const EXACT_AVERAGE_TRIES = 20_000;

/**
 * The smallest quantity q (on the step, from the smallest quantity every filter accepts at
 * `price`, at most EXACT_AVERAGE_TRIES steps above it) such that one more trade of q at `price`
 * makes the volume-weighted average of a window exactly a multiple of `unit`: with the window's
 * sums `qty` and `quote`, (quote + price·q) / (qty + q). An average that lands on the answer's
 * last place reads the same whether the target rounds or truncates, so one unit off is a fault.
 * Undefined when no quantity in that range does (or the filters cap it below). Pure.
 */
export function quantityForExactAverage(
  rules: SymbolRules,
  window: { qty: Dec; quote: Dec },
  price: Dec,
  unit: Dec,
): Dec | undefined {
  if (unit <= ZERO || price <= ZERO || rules.step <= ZERO) return undefined;
  const first = smallestQuantity(rules, price);
  for (let i = 0; i < EXACT_AVERAGE_TRIES; i++) {
    const q = first + rules.step * BigInt(i);
    if (rules.maxQty > ZERO && q > rules.maxQty) return undefined;
    if (rules.maxNotional > ZERO && mul(q, price) > rules.maxNotional) return undefined;
    const total = window.qty + q;
    // quote + price·q, kept exact (×SCALE) so the divisibility test sees every digit.
    const sum = window.quote * unitOf(0) + price * q;
    if (sum % (total * unit) === 0n) return q;
  }
  return undefined;
}

/** A quote budget worth `units` of the smallest quantity at `price`, on the quote asset's precision. */
export function quoteBudget(rules: SymbolRules, units: number, price: Dec): Dec {
  const unit = unitOf(rules.quotePrecision);
  return floorToStep(mul(smallestQuantity(rules, price) * BigInt(units), price), unit > 0n ? unit : 1n);
}

export { parseDec };
