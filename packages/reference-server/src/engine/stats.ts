/**
 * Rolling trade statistics with memory bounded by the windows, not by the history:
 * - the 5-minute volume-weighted average price (checked on every order by the NOTIONAL and
 *   PERCENT_PRICE filters) from running totals per millisecond of the last five minutes;
 * - the 24-hour ticker from one bucket per minute of the last day, plus the trades of the one
 *   minute the window starts in, which the history store supplies (so the window is exact to
 *   the millisecond).
 * Both are rebuilt on restart from the store without reading the trades of the window: the minute
 * buckets are persisted, and the trades before the restart count towards the average price through
 * their minute buckets, the one partly expired minute being read from the store a chunk at a time
 * as the window moves on (so start-up does not depend on how many trades the last minutes hold).
 */
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { Trade } from "./types.js";

export const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 60 * MINUTE_MS;
export const AVG_PRICE_MINS = 5;
const AVG_WINDOW_MS = AVG_PRICE_MINS * MINUTE_MS;

/** Aggregates of the trades of one minute (or of any run of consecutive trades). */
export interface TradeBucket {
  /** Start of the minute, epoch ms. */
  minute: number;
  firstId: number;
  lastId: number;
  count: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  closeQty: Decimal;
  volume: Decimal;
  quoteVolume: Decimal;
}

/** Running totals after the trades of one millisecond. */
interface Totals {
  time: number;
  qty: Decimal;
  quote: Decimal;
}

export function bucketOf(trade: Trade): TradeBucket {
  return {
    minute: trade.time - (trade.time % MINUTE_MS),
    firstId: trade.id,
    lastId: trade.id,
    count: 1,
    open: trade.price,
    high: trade.price,
    low: trade.price,
    close: trade.price,
    closeQty: trade.qty,
    volume: trade.qty,
    quoteVolume: trade.quoteQty,
  };
}

/** Folds `later` (trades after those of `into`) into `into`. */
export function mergeBucket(into: TradeBucket, later: TradeBucket): void {
  into.lastId = later.lastId;
  into.count += later.count;
  into.high = dec.max(into.high, later.high);
  into.low = dec.min(into.low, later.low);
  into.close = later.close;
  into.closeQty = later.closeQty;
  into.volume += later.volume;
  into.quoteVolume += later.quoteVolume;
}

/** What the average price needs of a trade. */
export type TradeVolume = Pick<Trade, "id" | "time" | "qty" | "quoteQty">;

/** Reads the trades of one minute bucket (ids in [fromId, toId]), oldest first, at most `limit`. */
export type TradeReader = (fromId: number, toId: number, limit: number) => readonly TradeVolume[];

const READ_CHUNK = 4096;

/** The trades before a restart that still count towards the average price, by minute bucket. */
class Backlog {
  /** Within `minutes[0]`: the trades summed so far (all before `since`), and the next id to read. */
  private cursor = { since: Number.MIN_SAFE_INTEGER, nextId: 0, qty: 0n, quote: 0n };
  /** Rows read from the store so far (for tests: bounded by the trades that expire). */
  rowsRead = 0;

  constructor(
    private minutes: TradeBucket[],
    private readonly read: TradeReader,
  ) {
    this.resetCursor();
  }

  get done(): boolean {
    return this.minutes.length === 0;
  }

  volumeSince(since: number): { qty: Decimal; quote: Decimal } {
    this.expireWholeMinutes(since);
    let qty = 0n;
    let quote = 0n;
    for (const bucket of this.minutes) {
      qty += bucket.volume;
      quote += bucket.quoteVolume;
    }
    const first = this.minutes[0];
    if (first && first.minute < since) {
      this.advance(first, since);
      qty -= this.cursor.qty;
      quote -= this.cursor.quote;
    }
    return { qty, quote };
  }

  private expireWholeMinutes(since: number): void {
    let drop = 0;
    while (drop < this.minutes.length && (this.minutes[drop] as TradeBucket).minute + MINUTE_MS <= since)
      drop += 1;
    if (drop === 0) return;
    this.minutes = this.minutes.slice(drop);
    this.resetCursor();
  }

  private resetCursor(): void {
    const first = this.minutes[0];
    this.cursor = { since: Number.MIN_SAFE_INTEGER, nextId: first?.firstId ?? 0, qty: 0n, quote: 0n };
    this.ahead = [];
    this.aheadAt = 0;
  }

  /** Trades read but not summed yet (at or after the last `since`): at most one chunk. */
  private ahead: readonly TradeVolume[] = [];
  private aheadAt = 0;

  /** Sums the trades of `bucket` before `since` (reading on from where the last call stopped). */
  private advance(bucket: TradeBucket, since: number): void {
    if (since < this.cursor.since) this.resetCursor();
    this.cursor.since = since;
    for (;;) {
      if (this.aheadAt === this.ahead.length) {
        if (this.cursor.nextId > bucket.lastId) return;
        this.ahead = this.read(this.cursor.nextId, bucket.lastId, READ_CHUNK);
        this.aheadAt = 0;
        this.rowsRead += this.ahead.length;
        if (this.ahead.length === 0) return;
        this.cursor.nextId = (this.ahead.at(-1) as TradeVolume).id + 1;
      }
      const trade = this.ahead[this.aheadAt] as TradeVolume;
      if (trade.time >= since) return;
      this.cursor.qty += trade.qty;
      this.cursor.quote += trade.quoteQty;
      this.aheadAt += 1;
    }
  }
}

export class TradeStats {
  /** Trades before a restart still inside the average price's window (read lazily). */
  private backlog: Backlog | undefined;

  /** Minute buckets of the last day, oldest first. */
  private readonly minutes: TradeBucket[] = [];
  private readonly totals: Totals[] = [];
  /** Index of the oldest live entry of `totals` (entries before it are expired). */
  private head = 0;
  /** Running totals before `totals[head]`. */
  private expired: { qty: Decimal; quote: Decimal } = { qty: 0n, quote: 0n };
  private grand: { qty: Decimal; quote: Decimal } = { qty: 0n, quote: 0n };

  add(trade: Trade): void {
    this.addToMinutes(bucketOf(trade));
    this.restoreRecent(trade);
  }

  /** Counts a trade of the last five minutes towards the average price only (on restore). */
  restoreRecent(trade: Trade): void {
    this.grand = { qty: this.grand.qty + trade.qty, quote: this.grand.quote + trade.quoteQty };
    const last = this.totals.at(-1);
    if (last && last.time === trade.time) {
      last.qty = this.grand.qty;
      last.quote = this.grand.quote;
    } else {
      this.totals.push({ time: trade.time, ...this.grand });
    }
    this.expire(trade.time);
  }

  /**
   * Counts the trades before a restart towards the average price: `buckets` are the minute buckets
   * that may hold trades of the window (oldest first), `read` reads a bucket's trades when the
   * window's start falls inside it.
   */
  restoreBacklog(buckets: readonly TradeBucket[], read: TradeReader): void {
    this.backlog =
      buckets.length === 0
        ? undefined
        : new Backlog(
            buckets.map((b) => ({ ...b })),
            read,
          );
  }

  /** Rows the average price has read from the store since the restart. */
  backlogRowsRead(): number {
    return this.backlog?.rowsRead ?? 0;
  }

  /** Restores a persisted minute bucket (buckets must come oldest first). */
  restoreMinute(bucket: TradeBucket): void {
    this.addToMinutes({ ...bucket });
  }

  /** The minute bucket a time falls in, if any trade happened in that minute. */
  minuteOf(time: number): TradeBucket | undefined {
    const minute = time - (time % MINUTE_MS);
    for (let i = this.minutes.length - 1; i >= 0; i -= 1) {
      const bucket = this.minutes[i] as TradeBucket;
      if (bucket.minute === minute) return bucket;
      if (bucket.minute < minute) return undefined;
    }
    return undefined;
  }

  /** Volume and quote volume of the trades at or after `since` within the last five minutes. */
  volumeSince(since: number): { qty: Decimal; quote: Decimal } {
    const live = this.liveVolumeSince(since);
    if (!this.backlog) return live;
    const before = this.backlog.volumeSince(since);
    if (this.backlog.done) this.backlog = undefined;
    return { qty: live.qty + before.qty, quote: live.quote + before.quote };
  }

  private liveVolumeSince(since: number): { qty: Decimal; quote: Decimal } {
    let low = this.head;
    let high = this.totals.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.totals[middle] as Totals).time < since) low = middle + 1;
      else high = middle;
    }
    const before = low > this.head ? (this.totals[low - 1] as Totals) : this.expired;
    return { qty: this.grand.qty - before.qty, quote: this.grand.quote - before.quote };
  }

  /**
   * Aggregates of the trades in [openTime, now]: `edge` holds the trades from `openTime` to the end
   * of its minute (the part no bucket covers exactly); the whole minutes after it come from buckets.
   */
  window(openTime: number, now: number, edge: readonly Trade[]): TradeBucket | undefined {
    let result: TradeBucket | undefined;
    const fold = (bucket: TradeBucket) => {
      if (result) mergeBucket(result, bucket);
      else result = { ...bucket };
    };
    for (const trade of edge) fold(bucketOf(trade));
    const firstWholeMinute = openTime - (openTime % MINUTE_MS) + MINUTE_MS;
    for (const bucket of this.minutes) {
      if (bucket.minute >= firstWholeMinute && bucket.minute <= now) fold(bucket);
    }
    return result;
  }

  /** Start of the first minute whose bucket the ticker uses at `openTime` (the edge ends there). */
  static edgeEnd(openTime: number): number {
    return openTime - (openTime % MINUTE_MS) + MINUTE_MS;
  }

  /** Number of minute buckets and millisecond totals held (bounded by the windows). */
  size(): { minutes: number; totals: number } {
    return { minutes: this.minutes.length, totals: this.totals.length - this.head };
  }

  private addToMinutes(bucket: TradeBucket): void {
    const last = this.minutes.at(-1);
    if (last && last.minute === bucket.minute) mergeBucket(last, bucket);
    else this.minutes.push(bucket);
    const oldest = bucket.minute - DAY_MS - MINUTE_MS;
    let drop = 0;
    while (drop < this.minutes.length && (this.minutes[drop] as TradeBucket).minute < oldest) drop += 1;
    if (drop > 0) this.minutes.splice(0, drop);
  }

  private expire(now: number): void {
    const oldest = now - AVG_WINDOW_MS;
    while (this.head < this.totals.length - 1 && (this.totals[this.head] as Totals).time < oldest) {
      this.expired = this.totals[this.head] as Totals;
      this.head += 1;
    }
    // Compact now and then, so the array does not keep expired entries forever.
    if (this.head > 1024 && this.head * 2 > this.totals.length) {
      this.totals.splice(0, this.head);
      this.head = 0;
    }
  }
}
