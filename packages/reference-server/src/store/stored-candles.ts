/**
 * The candles of the state database (table `candles`): written with the trades they fold, read
 * with index searches, and overlaid, like every history read, with the trades not committed yet.
 * A committed candle row holds exactly the committed trades of its candle (it is written in the
 * same batch as they are), so the overlay folds in the uncommitted trades above its last trade id.
 */
import {
  CANDLE_LEVELS,
  type Candle,
  CandleFolder,
  candleOfTrade,
  levelOpen,
  mergeCandle,
  type Trade,
} from "../engine/index.js";
import { type CandleRow, candleFromRow, type WriteOp } from "./rows.js";
import { candleValues } from "./schema.js";
import type { TableReads } from "./table-reads.js";
import type { Uncommitted } from "./uncommitted.js";

export class StoredCandles {
  /** The latest candle of each level per symbol, with every trade recorded so far folded in. */
  private folders = new Map<string, CandleFolder>();

  constructor(
    private readonly tables: TableReads,
    private readonly uncommitted: Uncommitted,
  ) {}

  /** Takes the latest committed candles (at start-up, and after a failed commit took back the rest). */
  load(): void {
    this.folders = new Map();
    for (const symbol of this.tables.symbolPositions.keys()) {
      const folder = this.folder(symbol);
      for (const level of CANDLE_LEVELS) {
        const last = this.tables.row("lastCandle", [symbol, level], candleFromRow);
        if (last) folder.restore(level, last);
      }
    }
  }

  /** The writes of the candles these trades (oldest first) touch, with their values after them. */
  writes(trades: readonly Trade[]): WriteOp[] {
    const bySymbol = new Map<string, Trade[]>();
    for (const trade of trades) {
      const list = bySymbol.get(trade.symbol);
      if (list) list.push(trade);
      else bySymbol.set(trade.symbol, [trade]);
    }
    const ops: WriteOp[] = [];
    for (const [symbol, list] of bySymbol) {
      for (const [level, candle] of this.folder(symbol).fold(list)) {
        ops.push(["candle", symbol, level, ...candleValues(candle)]);
      }
    }
    return ops;
  }

  candles(symbol: string, level: number, from: number, to: number): Candle[] {
    const stored = this.tables.rows<CandleRow, Candle>(
      "candlesBetween",
      [symbol, level, from, to],
      candleFromRow,
    );
    return this.overlay(stored, symbol, level, (open) => open >= from && open < to);
  }

  candleBefore(symbol: string, level: number, time: number): Candle | undefined {
    const stored = this.tables.row<CandleRow, Candle>("candleBefore", [symbol, level, time], candleFromRow);
    let newest = stored?.openTime ?? Number.NEGATIVE_INFINITY;
    for (const trade of this.uncommitted.trades.filter(symbol, (t) => levelOpen(t.time, level) < time)) {
      newest = Math.max(newest, levelOpen(trade.time, level));
    }
    if (newest === Number.NEGATIVE_INFINITY) return undefined;
    return this.candles(symbol, level, newest, newest + level)[0];
  }

  firstCandle(symbol: string, level: number): Candle | undefined {
    const stored = this.tables.row<CandleRow, Candle>("firstCandle", [symbol, level], candleFromRow);
    if (stored) return this.candles(symbol, level, stored.openTime, stored.openTime + level)[0];
    const fresh = this.overlay([], symbol, level, () => true);
    return fresh[0];
  }

  /** The stored candles with the uncommitted trades of the candles that `wanted` (their open time) folded in. */
  private overlay(
    stored: Candle[],
    symbol: string,
    level: number,
    wanted: (open: number) => boolean,
  ): Candle[] {
    const fresh = this.uncommitted.trades
      .filter(symbol, (t) => wanted(levelOpen(t.time, level)))
      .sort((a, b) => a.id - b.id);
    if (fresh.length === 0) return stored;
    const byOpen = new Map(stored.map((candle) => [candle.openTime, candle]));
    for (const trade of fresh) {
      const own = candleOfTrade(trade, level);
      const candle = byOpen.get(own.openTime);
      if (!candle) byOpen.set(own.openTime, own);
      else if (trade.id > candle.lastId) mergeCandle(candle, own);
    }
    return [...byOpen.values()].sort((a, b) => a.openTime - b.openTime);
  }

  private folder(symbol: string): CandleFolder {
    let folder = this.folders.get(symbol);
    if (!folder) {
      folder = new CandleFolder();
      this.folders.set(symbol, folder);
    }
    return folder;
  }
}
