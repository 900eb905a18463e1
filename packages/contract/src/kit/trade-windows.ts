/**
 * The statistics of a trade window (x-relations tradeWindows), stated once for every judge of
 * them: the value of each measure over the window's trades, which trades a window of the last
 * `minutes` holds when the server's time is only bracketed, and how an answer's measures compare
 * with those values. trade_statistics judges a run's windows with them, and recall judges the
 * same windows after a restart.
 */
import type { TradeWindow, WindowMeasure } from "@marketapi/spec/model";
import { type Dec, div, formatDec, fromRatio, mul, tryParseDec, ZERO } from "../core/decimal.js";
import { valueAt } from "./behaviour-support.js";
import { sameToLastPlace, type TradeRow } from "./relations-support.js";

/** The value of each measure over the trades (oldest first; at least one). */
export function measuresOf(trades: readonly TradeRow[]): Record<WindowMeasure, Dec | number> {
  const first = trades[0] as TradeRow;
  const last = trades.at(-1) as TradeRow;
  let high = first.price;
  let low = first.price;
  let volume = ZERO;
  let quoteVolume = ZERO;
  for (const t of trades) {
    if (t.price > high) high = t.price;
    if (t.price < low) low = t.price;
    volume += t.qty;
    quoteVolume += t.quoteQty;
  }
  const change = last.price - first.price;
  return {
    count: trades.length,
    firstId: first.id,
    lastId: last.id,
    firstPrice: first.price,
    lastPrice: last.price,
    lastQty: last.qty,
    lastTime: last.time,
    highPrice: high,
    lowPrice: low,
    volume,
    quoteVolume,
    weightedAverage: volume > ZERO ? div(quoteVolume, volume) : ZERO,
    change,
    changePercent: first.price > ZERO ? div(mul(change, fromRatio(100, 1)), first.price) : ZERO,
  };
}

/**
 * The trades of a window of the last `spanMs` before the server made its answer, when that moment
 * is known only to lie between `from` and `to` (server_time read before and after): the trades
 * after `to - spanMs` are inside; a trade from `from - spanMs` to `to - spanMs`, both included,
 * lies where the window's start could have been, and leaves the window undecided.
 */
export function recentWindowTrades(
  trades: readonly TradeRow[],
  bracket: { from: number; to: number },
  spanMs: number,
): { inside: TradeRow[]; edge?: TradeRow } {
  const edge = trades.find((t) => t.time >= bracket.from - spanMs && t.time <= bracket.to - spanMs);
  const inside = trades.filter((t) => t.time > bracket.to - spanMs);
  return edge ? { inside, edge } : { inside };
}

/** The measures that are prices: shown to the symbol's tick at least, whatever places they carry. */
const PRICE_MEASURES: ReadonlySet<WindowMeasure> = new Set([
  "firstPrice",
  "lastPrice",
  "highPrice",
  "lowPrice",
  "weightedAverage",
  "change",
]);

/** Whether `shown` is less than one tick from `exact` (a price written with fewer places than the tick's hides what it can show). */
function withinTick(shown: unknown, exact: Dec, tick: Dec): boolean {
  const value = tryParseDec(shown);
  if (value === undefined) return false;
  return (value > exact ? value - exact : exact - value) < tick;
}

/**
 * What differs between the measures an answer reports (at the window's pointers) and the values
 * `expected` gives, each said with the pointer, the value shown and `from`, what gave the value.
 * Each measure holds to the last place it shows; a price also to less than one `tick` of its
 * symbol, when given.
 */
export function measureProblems(
  window: TradeWindow,
  json: unknown,
  expected: Partial<Record<WindowMeasure, Dec | number>>,
  from: string,
  tick?: Dec,
): string[] {
  const problems: string[] = [];
  for (const [measure, pointer] of Object.entries(window.measures) as Array<[WindowMeasure, string]>) {
    const want = expected[measure];
    if (want === undefined) continue;
    const shown = valueAt(json, pointer);
    const holds =
      typeof want === "number"
        ? shown === want
        : sameToLastPlace(shown, want) &&
          (tick === undefined || !PRICE_MEASURES.has(measure) || withinTick(shown, want, tick));
    if (!holds)
      problems.push(
        `${pointer} is ${JSON.stringify(shown)}; ${from} give ${typeof want === "number" ? want : formatDec(want)} (${measure})`,
      );
  }
  return problems;
}
