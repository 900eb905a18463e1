import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import { ORDER_TYPES, type OrderType, type SelfTradePreventionMode } from "./types.js";

export interface PriceFilter {
  filterType: "PRICE_FILTER";
  minPrice: string;
  maxPrice: string;
  tickSize: string;
}

export interface LotSizeFilter {
  filterType: "LOT_SIZE" | "MARKET_LOT_SIZE";
  minQty: string;
  maxQty: string;
  stepSize: string;
}

export interface NotionalFilter {
  filterType: "NOTIONAL";
  minNotional: string;
  applyMinToMarket: boolean;
  maxNotional: string;
  applyMaxToMarket: boolean;
  avgPriceMins: number;
}

export interface IcebergPartsFilter {
  filterType: "ICEBERG_PARTS";
  limit: number;
}

export interface MaxNumOrdersFilter {
  filterType: "MAX_NUM_ORDERS";
  maxNumOrders: number;
}

export interface MaxNumAlgoOrdersFilter {
  filterType: "MAX_NUM_ALGO_ORDERS";
  maxNumAlgoOrders: number;
}

export interface TrailingDeltaFilter {
  filterType: "TRAILING_DELTA";
  minTrailingAboveDelta: number;
  maxTrailingAboveDelta: number;
  minTrailingBelowDelta: number;
  maxTrailingBelowDelta: number;
}

export type SymbolFilter =
  | PriceFilter
  | LotSizeFilter
  | NotionalFilter
  | IcebergPartsFilter
  | MaxNumOrdersFilter
  | MaxNumAlgoOrdersFilter
  | TrailingDeltaFilter;

/** A symbol as exchangeInfo shows it, plus `referencePrice`, the centre of seeded liquidity. */
export interface SymbolConfig {
  symbol: string;
  status: "TRADING" | "END_OF_DAY" | "HALT" | "BREAK" | "CANCEL_ONLY";
  baseAsset: string;
  baseAssetPrecision: number;
  quoteAsset: string;
  quotePrecision: number;
  quoteAssetPrecision: number;
  baseCommissionPrecision: number;
  quoteCommissionPrecision: number;
  orderTypes: OrderType[];
  icebergAllowed: boolean;
  ocoAllowed: boolean;
  otoAllowed: boolean;
  opoAllowed: boolean;
  quoteOrderQtyMarketAllowed: boolean;
  allowTrailingStop: boolean;
  cancelReplaceAllowed: boolean;
  amendAllowed: boolean;
  pegInstructionsAllowed: boolean;
  isSpotTradingAllowed: boolean;
  isMarginTradingAllowed: boolean;
  filters: SymbolFilter[];
  permissions: string[];
  permissionSets: string[][];
  defaultSelfTradePreventionMode: SelfTradePreventionMode;
  allowedSelfTradePreventionModes: SelfTradePreventionMode[];
  referencePrice: string;
}

interface Bounds {
  min: Decimal;
  max: Decimal;
  step: Decimal;
}

/** The filters of one symbol as exact numbers; absent filters are undefined. */
export interface SymbolRules {
  price: Bounds | undefined;
  lot: Bounds | undefined;
  marketLot: Bounds | undefined;
  notional: NotionalRule | undefined;
  icebergParts: number | undefined;
  maxNumOrders: number | undefined;
  maxNumAlgoOrders: number | undefined;
  trailing: TrailingDeltaFilter | undefined;
  /** Quantity granularity used when a quote amount is turned into a quantity. */
  stepSize: Decimal;
}

export interface NotionalRule {
  min: Decimal;
  applyMinToMarket: boolean;
  max: Decimal;
  applyMaxToMarket: boolean;
  avgPriceMins: number;
}

interface SymbolSketch {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  referencePrice: string;
  tickSize: string;
  maxPrice: string;
  stepSize: string;
  maxQty: string;
  marketMaxQty: string;
  minNotional: string;
  maxNotional: string;
}

function filtersFor(s: SymbolSketch): SymbolFilter[] {
  return [
    { filterType: "PRICE_FILTER", minPrice: s.tickSize, maxPrice: s.maxPrice, tickSize: s.tickSize },
    { filterType: "LOT_SIZE", minQty: s.stepSize, maxQty: s.maxQty, stepSize: s.stepSize },
    { filterType: "ICEBERG_PARTS", limit: 10 },
    { filterType: "MARKET_LOT_SIZE", minQty: "0.00000000", maxQty: s.marketMaxQty, stepSize: "0.00000000" },
    {
      filterType: "TRAILING_DELTA",
      minTrailingAboveDelta: 10,
      maxTrailingAboveDelta: 2000,
      minTrailingBelowDelta: 10,
      maxTrailingBelowDelta: 2000,
    },
    {
      filterType: "NOTIONAL",
      minNotional: s.minNotional,
      applyMinToMarket: true,
      maxNotional: s.maxNotional,
      applyMaxToMarket: false,
      avgPriceMins: 5,
    },
    { filterType: "MAX_NUM_ORDERS", maxNumOrders: 200 },
    { filterType: "MAX_NUM_ALGO_ORDERS", maxNumAlgoOrders: 5 },
  ];
}

function symbolFrom(s: SymbolSketch): SymbolConfig {
  return {
    symbol: s.symbol,
    status: "TRADING",
    baseAsset: s.baseAsset,
    baseAssetPrecision: 8,
    quoteAsset: s.quoteAsset,
    quotePrecision: 8,
    quoteAssetPrecision: 8,
    baseCommissionPrecision: 8,
    quoteCommissionPrecision: 8,
    orderTypes: [...ORDER_TYPES],
    icebergAllowed: true,
    ocoAllowed: false,
    otoAllowed: false,
    opoAllowed: false,
    quoteOrderQtyMarketAllowed: true,
    allowTrailingStop: true,
    cancelReplaceAllowed: false,
    amendAllowed: false,
    pegInstructionsAllowed: false,
    isSpotTradingAllowed: true,
    isMarginTradingAllowed: false,
    filters: filtersFor(s),
    permissions: [],
    permissionSets: [["SPOT"]],
    defaultSelfTradePreventionMode: "NONE",
    allowedSelfTradePreventionModes: ["NONE"],
    referencePrice: s.referencePrice,
  };
}

/**
 * BTCUSDT, ETHUSDT and ETHBTC with realistic filters. ETHBTC uses a 0.001 step (Binance has
 * 0.0001) so that tickSize × stepSize stays within the 8 decimals of the quote asset.
 */
export const DEFAULT_SYMBOLS: readonly SymbolConfig[] = [
  symbolFrom({
    symbol: "BTCUSDT",
    baseAsset: "BTC",
    quoteAsset: "USDT",
    referencePrice: "60000.00000000",
    tickSize: "0.01000000",
    maxPrice: "1000000.00000000",
    stepSize: "0.00001000",
    maxQty: "9000.00000000",
    marketMaxQty: "100.00000000",
    minNotional: "5.00000000",
    maxNotional: "9000000.00000000",
  }),
  symbolFrom({
    symbol: "ETHUSDT",
    baseAsset: "ETH",
    quoteAsset: "USDT",
    referencePrice: "3000.00000000",
    tickSize: "0.01000000",
    maxPrice: "1000000.00000000",
    stepSize: "0.00010000",
    maxQty: "9000.00000000",
    marketMaxQty: "2000.00000000",
    minNotional: "5.00000000",
    maxNotional: "9000000.00000000",
  }),
  symbolFrom({
    symbol: "ETHBTC",
    baseAsset: "ETH",
    quoteAsset: "BTC",
    referencePrice: "0.05000000",
    tickSize: "0.00001000",
    maxPrice: "922327.00000000",
    stepSize: "0.00100000",
    maxQty: "100000.00000000",
    marketMaxQty: "1000.00000000",
    minNotional: "0.00010000",
    maxNotional: "9000000.00000000",
  }),
];

/** The exchangeInfo entry for a symbol (drops engine-only fields). */
export function exchangeInfoSymbol(config: SymbolConfig): Omit<SymbolConfig, "referencePrice"> {
  const { referencePrice: _engineOnly, ...info } = config;
  return structuredClone(info);
}

function findFilter<T extends SymbolFilter["filterType"]>(
  config: SymbolConfig,
  filterType: T,
): Extract<SymbolFilter, { filterType: T }> | undefined {
  return config.filters.find((f) => f.filterType === filterType) as
    | Extract<SymbolFilter, { filterType: T }>
    | undefined;
}

function boundsOf(filter: PriceFilter | LotSizeFilter | undefined): Bounds | undefined {
  if (!filter) return undefined;
  if (filter.filterType === "PRICE_FILTER") {
    return {
      min: dec.parse(filter.minPrice),
      max: dec.parse(filter.maxPrice),
      step: dec.parse(filter.tickSize),
    };
  }
  return { min: dec.parse(filter.minQty), max: dec.parse(filter.maxQty), step: dec.parse(filter.stepSize) };
}

function notionalOf(filter: NotionalFilter | undefined): NotionalRule | undefined {
  if (!filter) return undefined;
  return {
    min: dec.parse(filter.minNotional),
    applyMinToMarket: filter.applyMinToMarket,
    max: dec.parse(filter.maxNotional),
    applyMaxToMarket: filter.applyMaxToMarket,
    avgPriceMins: filter.avgPriceMins,
  };
}

/** Turns the string filters into exact numbers and checks the config is usable. */
export function compileRules(config: SymbolConfig): SymbolRules {
  const lot = boundsOf(findFilter(config, "LOT_SIZE"));
  const rules: SymbolRules = {
    price: boundsOf(findFilter(config, "PRICE_FILTER")),
    lot,
    marketLot: boundsOf(findFilter(config, "MARKET_LOT_SIZE")),
    notional: notionalOf(findFilter(config, "NOTIONAL")),
    icebergParts: findFilter(config, "ICEBERG_PARTS")?.limit,
    maxNumOrders: findFilter(config, "MAX_NUM_ORDERS")?.maxNumOrders,
    maxNumAlgoOrders: findFilter(config, "MAX_NUM_ALGO_ORDERS")?.maxNumAlgoOrders,
    trailing: findFilter(config, "TRAILING_DELTA"),
    stepSize: lot && lot.step > 0n ? lot.step : dec.ONE / 10n ** BigInt(config.baseAssetPrecision),
  };
  assertQuoteAmountsFit(config, rules);
  return rules;
}

// Every trade's quote amount must be exact at the quote precision, or balances would drift.
function assertQuoteAmountsFit(config: SymbolConfig, rules: SymbolRules): void {
  const tick = rules.price?.step ?? 0n;
  if (tick === 0n) return;
  if (!dec.fitsDecimals(dec.mul(tick, rules.stepSize), config.quoteAssetPrecision)) {
    throw new RangeError(
      `Symbol ${config.symbol}: tickSize × stepSize needs more than ${config.quoteAssetPrecision} decimals`,
    );
  }
}
