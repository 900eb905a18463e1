/**
 * trade_statistics (x-relations tradeWindows): statistics an answer reports (the 24-hour ticker,
 * the average price) are the functions of the trades in their window, computed here from the
 * trades the spec's trade source lists. Only what the reads prove is judged:
 * - a window the answer states (start and end) is compared with the trades whose ids existed before
 *   the answer was read; a newer trade that falls inside it makes the reads inconclusive;
 * - a window of the last `minutes` ends when the server made the answer, which `server_time` read
 *   before and after brackets; a trade whose time falls where the window's start could have been,
 *   or a trade between the reads, makes them inconclusive;
 * inconclusive reads are made again, at most ATTEMPTS times, then noted as not judged. A window
 * with more trades than one page of the trade source is noted, not judged; so is an average over
 * an empty window (the spec leaves it open).
 */
import type { TradeWindow, WindowMeasure } from "@marketapi/spec/model";
import { type Dec, div, formatDec, fromRatio, mul, ZERO } from "../decimal.js";
import type { RoundTrip } from "../round-trip.js";
import { valueAt } from "./behaviour-support.js";
import type { ContractCheck } from "./check.js";
import { bodyObject, op, type RunContext } from "./context.js";
import {
  ATTEMPTS,
  named,
  newestTradeId,
  newestTrades,
  readAnswer,
  relationsOf,
  sameToLastPlace,
  type TradeRow,
} from "./relations-support.js";

const CHECK = "trade_statistics";
/** Trades read to cover a window: one page of the trade source at most. */
const WINDOW_TRADES = 1000;

export const tradeStatistics: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "stats",
  description:
    "the 24-hour statistics and the average price are the functions of the trades in their windows (x-relations)",
  covers: ["x-relations"],
  hook: { phase: "relation", run: tradeStatisticsCheck },
  appliesTo: named((relations) => relations.tradeWindows.map((window) => window.operation)),
  notApplicable: "x-relations states no trade window of it",
  seenToCatch: ["ticker24hr-volume-misses-newest", "ticker24hr-count-off-by-one", "avgPrice-closeTime-now"],
};

export async function tradeStatisticsCheck(ctx: RunContext): Promise<void> {
  const relations = relationsOf(ctx);
  if (!relations) return;
  for (const window of relations.tradeWindows) {
    const operation = op(ctx, window.operation);
    if (!operation) continue;
    let outcome: Outcome = { inconclusive: "not read" };
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      outcome =
        "minutes" in window.window ? await recentWindow(ctx, window) : await statedWindow(ctx, window);
      if (!("inconclusive" in outcome)) break;
    }
    if ("inconclusive" in outcome) {
      ctx.session.recorder.note(
        CHECK,
        window.operation,
        `${window.name}: ${outcome.inconclusive}; not judged`,
      );
      continue;
    }
    if ("unjudged" in outcome) {
      ctx.session.recorder.note(CHECK, window.operation, `${window.name}: ${outcome.unjudged}`);
      continue;
    }
    judge(ctx, window, outcome.exchange, outcome.trades);
  }
}

type Outcome = { inconclusive: string } | { unjudged: string } | { exchange: RoundTrip; trades: TradeRow[] };

/** A window whose bounds the answer states: the trades from its start to its end, both included. */
async function statedWindow(ctx: RunContext, window: TradeWindow): Promise<Outcome> {
  const bounds = window.window as { start: string; end: string };
  const before = await newestTradeId(ctx, CHECK, `${window.name}: the newest trade id before`);
  if (before === undefined) return { unjudged: "the trades could not be read" };
  const served = await readAnswer(ctx, CHECK, window.operation, {}, `${window.name}: the answer`);
  if (!served) return { unjudged: "no answer" };
  const start = valueAt(served.json, bounds.start);
  const end = valueAt(served.json, bounds.end);
  if (typeof start !== "number" || typeof end !== "number")
    return { unjudged: `the answer holds no window (${bounds.start}, ${bounds.end})` };
  const trades = await newestTrades(ctx, CHECK, WINDOW_TRADES, `${window.name}: the trades of the window`);
  if (!trades) return { unjudged: "the trades could not be read" };
  const late = trades.filter((t) => (before === null || t.id > before) && t.time <= end);
  if (late.length > 0) return { inconclusive: `trade ${late[0]?.id} happened while the answer was made` };
  if (!coversFrom(trades, start)) return { unjudged: `more than ${trades.length} trades in the window` };
  return {
    exchange: served.exchange,
    trades: trades.filter((t) => t.time >= start && t.time <= end && (before === null || t.id <= before)),
  };
}

/**
 * A window of the last `minutes` before the answer: the trades from (server time − minutes) on,
 * the server time bracketed by two reads of server_time.
 */
async function recentWindow(ctx: RunContext, window: TradeWindow): Promise<Outcome> {
  const pointer = (window.window as { minutes: string }).minutes;
  const first = await serverTime(ctx);
  if (first === undefined) return { unjudged: "server_time gives no time to place the window" };
  const before = await newestTradeId(ctx, CHECK, `${window.name}: the newest trade id before`);
  const served = await readAnswer(ctx, CHECK, window.operation, {}, `${window.name}: the answer`);
  const after = await newestTradeId(ctx, CHECK, `${window.name}: the newest trade id after`);
  const last = await serverTime(ctx);
  if (!served || before === undefined || after === undefined || last === undefined)
    return { unjudged: "the answer or the trades could not be read" };
  if (after !== before) return { inconclusive: "a trade happened while the answer was made" };
  const minutes = valueAt(served.json, pointer);
  if (typeof minutes !== "number" || minutes <= 0)
    return { unjudged: `the answer holds no window (${pointer})` };
  const span = minutes * 60_000;
  const trades = await newestTrades(ctx, CHECK, WINDOW_TRADES, `${window.name}: the trades of the window`);
  if (!trades) return { unjudged: "the trades could not be read" };
  const known = trades.filter((t) => before === null || t.id <= before);
  const edge = known.find((t) => t.time >= first - span && t.time <= last - span);
  if (edge)
    return {
      inconclusive: `trade ${edge.id} is at the window's start, which the server's clock leaves open`,
    };
  if (!coversFrom(trades, first - span))
    return { unjudged: `more than ${trades.length} trades in the window` };
  const inside = known.filter((t) => t.time > last - span);
  if (inside.length === 0) return { unjudged: "no trade in the window: the average of none is left open" };
  return { exchange: served.exchange, trades: inside };
}

/** Whether the newest trades read reach back before `time` (or are every trade there is). */
function coversFrom(trades: TradeRow[], time: number): boolean {
  return trades.length < WINDOW_TRADES || (trades[0]?.time ?? 0) < time;
}

async function serverTime(ctx: RunContext): Promise<number | undefined> {
  const time = op(ctx, "server_time");
  if (!time) return undefined;
  const exchange = await ctx.session.call({ op: time, params: [] }, "trade statistics: the server's time");
  const value = bodyObject(exchange)?.serverTime;
  return typeof value === "number" ? value : undefined;
}

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

function judge(ctx: RunContext, window: TradeWindow, exchange: RoundTrip, trades: TradeRow[]): void {
  const json = exchange.response?.json;
  const problems: string[] = [];
  if (trades.length === 0) {
    for (const [pointer, value] of Object.entries(window.empty)) {
      const shown = valueAt(json, pointer);
      if (shown !== value)
        problems.push(`${pointer} is ${JSON.stringify(shown)}; with no trade in the window, ${value}`);
    }
  } else {
    const exact = measuresOf(trades);
    for (const [measure, pointer] of Object.entries(window.measures) as Array<[WindowMeasure, string]>) {
      const shown = valueAt(json, pointer);
      const want = exact[measure];
      const holds = typeof want === "number" ? shown === want : sameToLastPlace(shown, want);
      if (!holds)
        problems.push(
          `${pointer} is ${JSON.stringify(shown)}; the ${trades.length} trades of the window (ids ${trades[0]?.id}–${trades.at(-1)?.id}) give ${typeof want === "number" ? want : formatDec(want)} (${measure})`,
        );
    }
  }
  if (problems.length === 0) ctx.session.pass(CHECK, exchange);
  else ctx.session.fail(CHECK, exchange, `${window.name}: ${problems.join("; ")}`);
}
