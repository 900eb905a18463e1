/**
 * The candles of the state database (table `candles`). A candle is written once, when it is
 * complete (a later trade opened the next candle of its level), in the batch of that trade: a
 * commit writes a row only when a second (or a longer level) rolls over, never one per level and
 * commit. The latest candle of each level lives in memory (CandleFolder) with every trade recorded
 * so far, and so do the completed ones whose batch is not committed yet; reads overlay both on the
 * committed rows. At start-up the latest candles are rebuilt level by level, from the trades after
 * the last stored second and from each level's shorter candles after its last stored one: by the
 * rule above, at most one candle's worth of each (a second of trades, 59 minutes, ...), whatever
 * the history.
 */
import {
  CANDLE_LEVELS,
  type Candle,
  CandleFolder,
  candleOfTrade,
  levelOpen,
  type Trade,
} from "../engine/index.js";
import { type CandleRow, candleFromRow, type TradeRow, tradeFromRow, type WriteOp } from "./rows.js";
import { candleValues } from "./schema.js";
import type { TableReads } from "./table-reads.js";

/** Trades read at a time while the latest second is rebuilt at start-up. */
const READ_CHUNK = 4096;

interface Pending {
  candle: Candle;
  /** The batch that writes it. */
  batch: number;
}

interface SymbolCandles {
  folder: CandleFolder;
  /** Completed candles not committed yet, by level and open time. */
  pending: Map<number, Map<number, Pending>>;
}

export class StoredCandles {
  private symbols = new Map<string, SymbolCandles>();

  constructor(private readonly tables: TableReads) {}

  /**
   * Rebuilds the latest candles from the committed rows and trades (at start-up, and after a failed
   * commit took back the rest); the writes of candles found complete meanwhile (none when the file
   * was written by this rule).
   */
  load(): WriteOp[] {
    this.symbols = new Map();
    const ops: WriteOp[] = [];
    for (const symbol of this.tables.symbolPositions.keys()) {
      const { folder } = this.of(symbol);
      const write = (level: number, done: Candle | undefined) => {
        if (done) ops.push(["candle", symbol, level, ...candleValues(done)]);
      };
      CANDLE_LEVELS.forEach((level, i) => {
        const last = this.tables.row<CandleRow, Candle>("lastCandle", [symbol, level], candleFromRow);
        if (last) folder.foldCandle(level, last);
        const after = last?.lastId ?? -1;
        if (i === 0) {
          for (const trade of this.lastSecondsTrades(symbol, after, level)) {
            write(level, folder.foldCandle(level, candleOfTrade(trade, level)));
          }
          return;
        }
        const shorter = CANDLE_LEVELS[i - 1] as number;
        const open = folder.current(shorter);
        if (!open) return;
        // Only the shorter candles of the latest period of this level (all of them, when the file
        // was written by the rule above; a bound on what start-up reads, whatever the file holds).
        const from = Math.max(last?.openTime ?? 0, levelOpen(open.openTime, level));
        // The shorter level's latest candle as rebuilt (it may hold more than its row, if it has one).
        const parts = this.tables
          .rows<CandleRow, Candle>("candlesFrom", [symbol, shorter, from], candleFromRow)
          .filter((c) => c.firstId > after && c.openTime !== open.openTime);
        if (open.firstId > after) parts.push(open);
        for (const part of parts) write(level, folder.foldCandle(level, part));
      });
    }
    return ops;
  }

  /** Folds the trades of a change set (oldest first); the writes of the candles they completed, in `batch`. */
  record(trades: readonly Trade[], batch: number): WriteOp[] {
    const ops: WriteOp[] = [];
    const bySymbol = new Map<string, Trade[]>();
    for (const trade of trades) {
      const list = bySymbol.get(trade.symbol);
      if (list) list.push(trade);
      else bySymbol.set(trade.symbol, [trade]);
    }
    for (const [symbol, list] of bySymbol) {
      const state = this.of(symbol);
      for (const [level, candle] of state.folder.fold(list)) {
        let byOpen = state.pending.get(level);
        if (!byOpen) {
          byOpen = new Map();
          state.pending.set(level, byOpen);
        }
        byOpen.set(candle.openTime, { candle, batch });
        ops.push(["candle", symbol, level, ...candleValues(candle)]);
      }
    }
    return ops;
  }

  /** The batch is committed: its completed candles are read from the table from now on. */
  settle(batch: number): void {
    for (const { pending } of this.symbols.values()) {
      for (const byOpen of pending.values()) {
        for (const [open, entry] of byOpen) if (entry.batch <= batch) byOpen.delete(open);
      }
    }
  }

  candles(symbol: string, level: number, from: number, to: number): Candle[] {
    const stored = this.tables.rows<CandleRow, Candle>(
      "candlesBetween",
      [symbol, level, from, to],
      candleFromRow,
    );
    const fresh = this.fresh(symbol, level).filter((c) => c.openTime >= from && c.openTime < to);
    if (fresh.length === 0) return stored;
    const byOpen = new Map(stored.map((candle) => [candle.openTime, candle]));
    for (const candle of fresh) byOpen.set(candle.openTime, candle);
    return [...byOpen.values()].sort((a, b) => a.openTime - b.openTime);
  }

  candleBefore(symbol: string, level: number, time: number): Candle | undefined {
    const stored = this.tables.row<CandleRow, Candle>("candleBefore", [symbol, level, time], candleFromRow);
    return newest([
      ...(stored ? [stored] : []),
      ...this.fresh(symbol, level).filter((c) => c.openTime < time),
    ]);
  }

  firstCandle(symbol: string, level: number): Candle | undefined {
    const stored = this.tables.row<CandleRow, Candle>("firstCandle", [symbol, level], candleFromRow);
    const fresh = this.fresh(symbol, level);
    let first = stored;
    // Fresh values of a candle win over its row (they hold more trades, or the same).
    for (const candle of fresh) if (!first || candle.openTime <= first.openTime) first = candle;
    return first;
  }

  /** The level's candles not in the table yet, or newer than their row: completed ones not committed, and the latest. */
  private fresh(symbol: string, level: number): Candle[] {
    const state = this.symbols.get(symbol);
    if (!state) return [];
    const candles = [...(state.pending.get(level)?.values() ?? [])].map((entry) => entry.candle);
    const latest = state.folder.current(level);
    if (latest) candles.push(latest);
    return candles;
  }

  /**
   * The trades of the symbol after `id` in the second of its last trade, oldest first: read from
   * the newest back, a chunk at a time (by the rule above every trade after the last stored second
   * is in that second; a bound on what start-up reads, whatever the file holds).
   */
  private lastSecondsTrades(symbol: string, id: number, second: number): Trade[] {
    const [first, end] = this.tables.span(symbol);
    const found: Trade[] = [];
    let below = end;
    let since: number | undefined;
    for (;;) {
      const chunk = this.tables.rows<TradeRow, Trade>(
        "recentTrades",
        [Math.max(first, this.tables.key(symbol, id + 1)), below, READ_CHUNK],
        tradeFromRow,
        symbol,
      );
      for (const trade of chunk) {
        since ??= levelOpen(trade.time, second);
        if (trade.time < since) return found.reverse();
        found.push(trade);
      }
      if (chunk.length < READ_CHUNK) return found.reverse();
      below = this.tables.key(symbol, (chunk.at(-1) as Trade).id);
    }
  }

  private of(symbol: string): SymbolCandles {
    let state = this.symbols.get(symbol);
    if (!state) {
      state = { folder: new CandleFolder(), pending: new Map() };
      this.symbols.set(symbol, state);
    }
    return state;
  }
}

/** The newest of the candles; of two with one open time, the later in the list (fresh over stored). */
function newest(candles: Candle[]): Candle | undefined {
  let best: Candle | undefined;
  for (const candle of candles) if (!best || candle.openTime >= best.openTime) best = candle;
  return best;
}
