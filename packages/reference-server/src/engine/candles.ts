/**
 * Candles (klines) built from the trades. A history keeps them at a few stored levels, cut in UTC
 * from the epoch, each level dividing the next (1 s, 1 min, 15 min, 1 h, 1 day); the sixteen live
 * intervals, in any time zone, are folded from the largest level whose candles fit inside theirs.
 * A read costs the stored candles of that level in the window, never the trades: at most `limit`
 * × (interval / level) rows (31 per candle for `1M` in UTC, 24 × 31 with a whole-hour time zone),
 * whatever the number of trades.
 *
 * A candle without trades is answered as the live API answers it: open, high, low and close are the
 * previous close, the volumes zero. The series runs from the candle of the first stored trade to the
 * candle that holds `now` (still open).
 */
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { Trade } from "./types.js";
import type { Formats } from "./views.js";

export const KLINE_INTERVALS = [
  "1s",
  "1m",
  "3m",
  "5m",
  "15m",
  "30m",
  "1h",
  "2h",
  "4h",
  "6h",
  "8h",
  "12h",
  "1d",
  "3d",
  "1w",
  "1M",
] as const;
export type KlineInterval = (typeof KLINE_INTERVALS)[number];

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 1970-01-01 was a Thursday: weeks (from Monday) start four days after the epoch. */
const FIRST_MONDAY = 4 * DAY;

/** The levels candles are stored at: UTC from the epoch, each dividing the next. */
export const CANDLE_LEVELS: readonly number[] = [SECOND, MINUTE, 15 * MINUTE, HOUR, DAY];

/** The fixed length of each interval (weeks and months are cut by the calendar). */
const FIXED: Readonly<Record<Exclude<KlineInterval, "1w" | "1M">, number>> = {
  "1s": SECOND,
  "1m": MINUTE,
  "3m": 3 * MINUTE,
  "5m": 5 * MINUTE,
  "15m": 15 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": HOUR,
  "2h": 2 * HOUR,
  "4h": 4 * HOUR,
  "6h": 6 * HOUR,
  "8h": 8 * HOUR,
  "12h": 12 * HOUR,
  "1d": DAY,
  "3d": 3 * DAY,
};

/** The aggregates of the trades of one candle. */
export interface Candle {
  openTime: number;
  firstId: number;
  lastId: number;
  count: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
  quoteVolume: Decimal;
  /** Volume of the trades whose buyer took (the buyer was not the maker). */
  takerBuyVolume: Decimal;
  takerBuyQuoteVolume: Decimal;
}

/** The open time of the candle of `level` that holds `time` (UTC, from the epoch). */
export function levelOpen(time: number, level: number): number {
  return Math.floor(time / level) * level;
}

/** The candle of one trade at a level. */
export function candleOfTrade(trade: Trade, level: number): Candle {
  const takerBuy = !trade.isBuyerMaker;
  return {
    openTime: levelOpen(trade.time, level),
    firstId: trade.id,
    lastId: trade.id,
    count: 1,
    open: trade.price,
    high: trade.price,
    low: trade.price,
    close: trade.price,
    volume: trade.qty,
    quoteVolume: trade.quoteQty,
    takerBuyVolume: takerBuy ? trade.qty : 0n,
    takerBuyQuoteVolume: takerBuy ? trade.quoteQty : 0n,
  };
}

/** Folds `later` (the trades after those of `into`, same candle or a later part) into `into`. */
export function mergeCandle(into: Candle, later: Candle): void {
  into.lastId = later.lastId;
  into.count += later.count;
  into.high = dec.max(into.high, later.high);
  into.low = dec.min(into.low, later.low);
  into.close = later.close;
  into.volume += later.volume;
  into.quoteVolume += later.quoteVolume;
  into.takerBuyVolume += later.takerBuyVolume;
  into.takerBuyQuoteVolume += later.takerBuyQuoteVolume;
}

/**
 * The latest candle of each stored level of one symbol, with every trade folded in so far: what a
 * store keeps in memory. `fold` returns the candles the trades completed (a later trade opened the
 * next candle of their level), each final: a store writes each candle once, when it is complete,
 * so a commit writes a row only when a second (or a longer level) rolls over, not one per level.
 */
export class CandleFolder {
  /** The latest candle per level (index as CANDLE_LEVELS). */
  private readonly latest: (Candle | undefined)[] = CANDLE_LEVELS.map(() => undefined);

  /**
   * Folds a part of a candle in at its level (a trade's, or a shorter level's candle, as a store
   * rebuilds its latest candles): into the latest candle when it opens at the same time (unless
   * its trades are in already), else as the new latest. The candle it completed, if any.
   */
  foldCandle(level: number, part: Candle): Candle | undefined {
    const i = CANDLE_LEVELS.indexOf(level);
    const latest = this.latest[i];
    const openTime = levelOpen(part.openTime, level);
    if (latest && latest.openTime === openTime) {
      if (part.firstId > latest.lastId) mergeCandle(latest, part);
      return undefined;
    }
    if (latest && openTime < latest.openTime) return undefined;
    this.latest[i] = { ...part, openTime };
    return latest;
  }

  /** The latest candle of a level (still open: more trades may fold into it). */
  current(level: number): Candle | undefined {
    const latest = this.latest[CANDLE_LEVELS.indexOf(level)];
    return latest && { ...latest };
  }

  /** Folds trades (oldest first, all of this symbol); the candles they completed, as [level, candle]. */
  fold(trades: Iterable<Trade>): [level: number, candle: Candle][] {
    const completed: [number, Candle][] = [];
    for (const trade of trades) {
      for (const level of CANDLE_LEVELS) {
        const done = this.foldCandle(level, candleOfTrade(trade, level));
        if (done) completed.push([level, done]);
      }
    }
    return completed;
  }
}

/** How one interval in one time zone cuts time into candles (open times in UTC epoch ms). */
export interface Cutter {
  /** The open time of the candle that holds `time`. */
  open(time: number): number;
  next(open: number): number;
  previous(open: number): number;
  /** The largest stored level every boundary of this cut is a multiple of. */
  level: number;
}

/** The cut of an interval in the time zone `offsetMs` east of UTC. */
export function cutterFor(interval: KlineInterval, offsetMs: number): Cutter {
  const fits = (level: number, length: number) =>
    length % level === 0 && ((offsetMs % level) + level) % level === 0;
  if (interval === "1M") {
    const level = largestLevel((l) => fits(l, DAY));
    const at = (open: number, months: number) => {
      const local = new Date(open + offsetMs);
      return Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + months, 1) - offsetMs;
    };
    return {
      level,
      open: (time) => at(time, 0),
      next: (open) => at(open, 1),
      previous: (open) => at(open, -1),
    };
  }
  const length = interval === "1w" ? 7 * DAY : FIXED[interval];
  const origin = (interval === "1w" ? FIRST_MONDAY : 0) - offsetMs;
  const level = largestLevel((l) => fits(l, interval === "1w" ? DAY : length));
  return {
    level,
    open: (time) => Math.floor((time - origin) / length) * length + origin,
    next: (open) => open + length,
    previous: (open) => open - length,
  };
}

function largestLevel(fits: (level: number) => boolean): number {
  for (let i = CANDLE_LEVELS.length - 1; i > 0; i -= 1) {
    const level = CANDLE_LEVELS[i] as number;
    if (fits(level)) return level;
  }
  return CANDLE_LEVELS[0] as number;
}

/** The live API's `timeZone`: hours (`8`, `-1`) or hours and minutes (`05:45`), as milliseconds east of UTC. */
export function timeZoneOffset(text: string | undefined): number {
  if (text === undefined) return 0;
  const match = /^([+-]?)(\d{1,2})(?::(\d{2}))?$/.exec(text);
  if (!match) throw new RangeError(`timeZone ${JSON.stringify(text)} is not hours or hours:minutes`);
  const [, sign, hours, minutes] = match;
  const magnitude = (Number(hours) * 60 + Number(minutes ?? 0)) * MINUTE;
  return sign === "-" ? -magnitude : magnitude;
}

/** What the klines of one symbol read from its history. */
export interface CandleReader {
  /** Stored candles of `level` with `from <= openTime < to`, oldest first. */
  candles(level: number, from: number, to: number): Candle[];
  /** The newest stored candle of `level` that opens before `time`. */
  candleBefore(level: number, time: number): Candle | undefined;
  /** The oldest stored candle of `level`. */
  firstCandle(level: number): Candle | undefined;
}

export interface KlinesQuery {
  interval: KlineInterval;
  startTime?: number | undefined;
  endTime?: number | undefined;
  /** Milliseconds east of UTC the intervals are cut in. */
  offsetMs: number;
  limit: number;
}

/** One candle as the live API writes it. */
export type KlineRow = [
  openTime: number,
  open: string,
  high: string,
  low: string,
  close: string,
  volume: string,
  closeTime: number,
  quoteVolume: string,
  count: number,
  takerBuyVolume: string,
  takerBuyQuoteVolume: string,
  unused: "0",
];

/**
 * The candles of a query, oldest first: with `startTime` the oldest opening at or after it, else the
 * newest; never one opening after `endTime`, nor before the first trade's, nor after `now`'s.
 */
export function klines(reader: CandleReader, formats: Formats, now: number, query: KlinesQuery): KlineRow[] {
  const cut = cutterFor(query.interval, query.offsetMs);
  const first = reader.firstCandle(cut.level);
  if (!first) return [];
  let low = cut.open(first.openTime);
  let high = cut.open(now);
  if (query.startTime !== undefined) {
    const open = cut.open(query.startTime);
    low = Math.max(low, open < query.startTime ? cut.next(open) : open);
  }
  if (query.endTime !== undefined) high = Math.min(high, cut.open(query.endTime));
  if (high < low) return [];
  const opens: number[] = [];
  if (query.startTime !== undefined) {
    for (let open = low; open <= high && opens.length < query.limit; open = cut.next(open)) opens.push(open);
  } else {
    for (let open = high; open >= low && opens.length < query.limit; open = cut.previous(open))
      opens.push(open);
    opens.reverse();
  }
  const from = opens[0] as number;
  const stored = reader.candles(cut.level, from, cut.next(opens.at(-1) as number));
  let previousClose: Decimal | undefined;
  let at = 0;
  const rows: KlineRow[] = [];
  for (const open of opens) {
    const close = cut.next(open);
    let candle: Candle | undefined;
    for (; at < stored.length && (stored[at] as Candle).openTime < close; at += 1) {
      const part = stored[at] as Candle;
      if (candle) mergeCandle(candle, part);
      else candle = { ...part, openTime: open };
    }
    if (candle) {
      previousClose = candle.close;
    } else {
      previousClose ??= reader.candleBefore(cut.level, from)?.close;
      if (previousClose === undefined) continue;
      candle = emptyCandle(open, previousClose);
    }
    rows.push(klineRow(candle, close - 1, formats));
  }
  return rows;
}

function emptyCandle(openTime: number, price: Decimal): Candle {
  return {
    openTime,
    firstId: -1,
    lastId: -1,
    count: 0,
    open: price,
    high: price,
    low: price,
    close: price,
    volume: 0n,
    quoteVolume: 0n,
    takerBuyVolume: 0n,
    takerBuyQuoteVolume: 0n,
  };
}

function klineRow(c: Candle, closeTime: number, f: Formats): KlineRow {
  return [
    c.openTime,
    f.price(c.open),
    f.price(c.high),
    f.price(c.low),
    f.price(c.close),
    f.qty(c.volume),
    closeTime,
    f.quote(c.quoteVolume),
    c.count,
    f.qty(c.takerBuyVolume),
    f.quote(c.takerBuyQuoteVolume),
    "0",
  ];
}
