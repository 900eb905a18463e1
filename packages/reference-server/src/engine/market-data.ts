import { type BookSide, visibleQty } from "./book.js";
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { History } from "./history.js";
import { lastPrice, type Market } from "./market.js";
import { clampLimit, type PageQuery } from "./paging.js";
import { AVG_PRICE_MINS, DAY_MS, MINUTE_MS, type TradeBucket, TradeStats } from "./stats.js";
import type { AggTrade, TickerType, Trade } from "./types.js";

export type PriceLevelTuple = [price: string, qty: string];

export interface DepthResponse {
  lastUpdateId: number;
  bids: PriceLevelTuple[];
  asks: PriceLevelTuple[];
}

export interface TradeResponse {
  id: number;
  price: string;
  qty: string;
  quoteQty: string;
  time: number;
  isBuyerMaker: boolean;
  isBestMatch: boolean;
}

export interface AggTradeResponse {
  a: number;
  p: string;
  q: string;
  f: number;
  l: number;
  T: number;
  m: boolean;
  M: boolean;
}

export interface AvgPriceResponse {
  mins: number;
  price: string;
  closeTime: number;
}

export interface BookTickerResponse {
  symbol: string;
  bidPrice: string;
  bidQty: string;
  askPrice: string;
  askQty: string;
}

export interface PriceTickerResponse {
  symbol: string;
  price: string;
}

export interface MiniTickerResponse {
  symbol: string;
  openPrice: string;
  highPrice: string;
  lowPrice: string;
  lastPrice: string;
  volume: string;
  quoteVolume: string;
  openTime: number;
  closeTime: number;
  firstId: number;
  lastId: number;
  count: number;
}

export interface FullTickerResponse extends MiniTickerResponse {
  priceChange: string;
  priceChangePercent: string;
  weightedAvgPrice: string;
  prevClosePrice: string;
  lastQty: string;
  bidPrice: string;
  bidQty: string;
  askPrice: string;
  askQty: string;
}

export const DEPTH_LIMIT = { default: 100, max: 5000 } as const;
export const TRADES_LIMIT = { default: 500, max: 1000 } as const;
/** aggTrades: the source document declares the default 1000 (x-limit), the live API 500. */
export const AGG_TRADES_LIMIT = { default: 1000, max: 1000 } as const;
export { AVG_PRICE_MINS };

export function depth(market: Market, limit?: number): DepthResponse {
  const levels = clampLimit(limit, DEPTH_LIMIT.default, DEPTH_LIMIT.max);
  return {
    lastUpdateId: market.lastUpdateId,
    bids: aggregateLevels(market, market.book.bids, levels),
    asks: aggregateLevels(market, market.book.asks, levels),
  };
}

function aggregateLevels(market: Market, side: BookSide, limit: number): PriceLevelTuple[] {
  const f = market.formats;
  return side
    .bestLevels(limit)
    .map((level) => [f.price(level.price), f.qty(dec.sum(level.orders.map(visibleQty)))]);
}

function tradeResponse(market: Market, trade: Trade): TradeResponse {
  const f = market.formats;
  return {
    id: trade.id,
    price: f.price(trade.price),
    qty: f.qty(trade.qty),
    quoteQty: f.quote(trade.quoteQty),
    time: trade.time,
    isBuyerMaker: trade.isBuyerMaker,
    isBestMatch: true,
  };
}

export function recentTrades(history: History, market: Market, limit?: number): TradeResponse[] {
  const count = clampLimit(limit, TRADES_LIMIT.default, TRADES_LIMIT.max);
  return history.trades(market.config.symbol, undefined, count).map((trade) => tradeResponse(market, trade));
}

/** Trades from `fromId` on (inclusive); the most recent ones without it. */
export function historicalTrades(
  history: History,
  market: Market,
  query: { fromId?: number; limit?: number },
): TradeResponse[] {
  const count = clampLimit(query.limit, TRADES_LIMIT.default, TRADES_LIMIT.max);
  return history
    .trades(market.config.symbol, query.fromId, count)
    .map((trade) => tradeResponse(market, trade));
}

function aggTradeResponse(market: Market, agg: AggTrade): AggTradeResponse {
  return {
    a: agg.id,
    p: market.formats.price(agg.price),
    q: market.formats.qty(agg.qty),
    f: agg.firstTradeId,
    l: agg.lastTradeId,
    T: agg.time,
    m: agg.isBuyerMaker,
    M: true,
  };
}

export function aggTrades(history: History, market: Market, query: PageQuery): AggTradeResponse[] {
  const count = clampLimit(query.limit, AGG_TRADES_LIMIT.default, AGG_TRADES_LIMIT.max);
  return history.aggTrades(market.config.symbol, query, count).map((agg) => aggTradeResponse(market, agg));
}

/** Volume-weighted price over the last `mins` minutes, else the last price; undefined before any trade. */
export function averagePrice(market: Market, now: number, mins = AVG_PRICE_MINS): Decimal | undefined {
  const { qty, quote } = market.stats.volumeSince(now - mins * MINUTE_MS);
  if (qty === 0n) return lastPrice(market);
  return dec.truncate(dec.div(quote, qty), market.config.quotePrecision);
}

export function avgPrice(market: Market, now: number): AvgPriceResponse {
  return {
    mins: AVG_PRICE_MINS,
    price: market.formats.price(averagePrice(market, now) ?? 0n),
    closeTime: market.lastTrade?.time ?? now,
  };
}

function bestOf(market: Market, side: BookSide): [price: string, qty: string] {
  const level = side.best();
  const f = market.formats;
  if (!level) return [f.price(0n), f.qty(0n)];
  return [f.price(level.price), f.qty(dec.sum(level.orders.map(visibleQty)))];
}

export function bookTicker(market: Market): BookTickerResponse {
  const [bidPrice, bidQty] = bestOf(market, market.book.bids);
  const [askPrice, askQty] = bestOf(market, market.book.asks);
  return { symbol: market.config.symbol, bidPrice, bidQty, askPrice, askQty };
}

export function priceTicker(market: Market): PriceTickerResponse {
  return { symbol: market.config.symbol, price: market.formats.price(lastPrice(market) ?? 0n) };
}

interface WindowStats {
  open: Decimal;
  high: Decimal;
  low: Decimal;
  last: Decimal;
  lastQty: Decimal;
  volume: Decimal;
  quoteVolume: Decimal;
  firstId: number;
  lastId: number;
  count: number;
}

function statsOf(window: TradeBucket | undefined, fallbackLast: Decimal): WindowStats {
  if (!window) return { ...emptyStats(), last: fallbackLast };
  return {
    open: window.open,
    high: window.high,
    low: window.low,
    last: window.close,
    lastQty: window.closeQty,
    volume: window.volume,
    quoteVolume: window.quoteVolume,
    firstId: window.firstId,
    lastId: window.lastId,
    count: window.count,
  };
}

function emptyStats(): WindowStats {
  return {
    open: 0n,
    high: 0n,
    low: 0n,
    last: 0n,
    lastQty: 0n,
    volume: 0n,
    quoteVolume: 0n,
    firstId: -1,
    lastId: -1,
    count: 0,
  };
}

/**
 * Rolling 24 h statistics. With no trade in the window Binance's conventions apply:
 * firstId/lastId -1, count 0, zero prices, while lastPrice/prevClosePrice keep the last known price.
 * Whole minutes come from the market's minute buckets; the first, partial minute from the history.
 */
export function ticker24hr(
  history: History,
  market: Market,
  now: number,
  type: TickerType = "FULL",
): MiniTickerResponse | FullTickerResponse {
  const openTime = now - DAY_MS;
  const symbol = market.config.symbol;
  const edge = history.tradesBetween(symbol, openTime, Math.min(TradeStats.edgeEnd(openTime), now + 1));
  const stats = statsOf(market.stats.window(openTime, now, edge), lastPrice(market) ?? 0n);
  const mini = miniTicker(market, stats, openTime, now);
  if (type === "MINI") return mini;
  const prevClose = stats.count > 0 ? (history.lastTradeBefore(symbol, openTime)?.price ?? 0n) : 0n;
  return fullTicker(market, stats, mini, prevClose);
}

function miniTicker(market: Market, s: WindowStats, openTime: number, closeTime: number): MiniTickerResponse {
  const f = market.formats;
  return {
    symbol: market.config.symbol,
    openPrice: f.price(s.open),
    highPrice: f.price(s.high),
    lowPrice: f.price(s.low),
    lastPrice: f.price(s.last),
    volume: f.qty(s.volume),
    quoteVolume: f.quote(s.quoteVolume),
    openTime,
    closeTime,
    firstId: s.firstId,
    lastId: s.lastId,
    count: s.count,
  };
}

function fullTicker(
  market: Market,
  s: WindowStats,
  mini: MiniTickerResponse,
  prevClose: Decimal,
): FullTickerResponse {
  const f = market.formats;
  const change = s.count > 0 ? s.last - s.open : 0n;
  const percent = s.open > 0n ? dec.div(change * 100n, s.open) : 0n;
  const weighted = s.volume > 0n ? dec.div(s.quoteVolume, s.volume) : 0n;
  const [bidPrice, bidQty] = bestOf(market, market.book.bids);
  const [askPrice, askQty] = bestOf(market, market.book.asks);
  const { symbol, openPrice, highPrice, lowPrice, lastPrice: last, volume, quoteVolume, ...times } = mini;
  return {
    symbol,
    priceChange: f.price(change),
    priceChangePercent: dec.format(percent, 3),
    weightedAvgPrice: f.price(weighted),
    prevClosePrice: f.price(s.count > 0 ? prevClose : s.last),
    lastPrice: last,
    lastQty: f.qty(s.lastQty),
    bidPrice,
    bidQty,
    askPrice,
    askQty,
    openPrice,
    highPrice,
    lowPrice,
    volume,
    quoteVolume,
    ...times,
  };
}
